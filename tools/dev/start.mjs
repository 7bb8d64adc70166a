// `npm start`: builds when a source changed since the last build, makes sure Postgres and NATS answer,
// then becomes the all-in-one process: it migrates and runs every app (or those `SERVICES` lists), and
// prints one line when all are ready. Ctrl-C stops them in order.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

// Written after each build `npm start` makes; a source newer than it means the build is out of date.
const stamp = join(root, 'dist', '.build-stamp');
const launcher = join(root, 'dist', 'apps', 'all-in-one', 'src', 'main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') newest = Math.max(newest, newestSource(path));
    } else if (/\.(tsx?|css|html)$/.test(entry.name) && !/\.(e2e-)?spec\.ts$/.test(entry.name)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

function buildIsCurrent() {
  if (!existsSync(stamp) || !existsSync(launcher)) return false;
  const sources = ['apps', 'libs', 'tools'].map((dir) => newestSource(join(root, dir)));
  const settings = ['package.json', 'package-lock.json', '.swcrc'].map(
    (file) => statSync(join(root, file)).mtimeMs,
  );
  return Math.max(...sources, ...settings) < statSync(stamp).mtimeMs;
}

if (!buildIsCurrent()) {
  // Dated when the build began, so that a source saved while it ran counts as newer next time.
  const began = new Date();
  run('npm', ['run', '--silent', 'build']);
  writeFileSync(stamp, `${began.toISOString()}\n`);
  utimesSync(stamp, began, began);
}
if (!process.env.SKIP_DEV_STACK) run('bash', ['tools/dev/dev-stack.sh']);

if (!process.env.NATS_GATEWAY_PASSWORD) {
  console.warn(
    [
      '',
      '  ┌──────────────────────────────────────────────────────────────────────────────────┐',
      '  │ NATS WITHOUT AUTHENTICATION: the apps connect anonymously, so anything that can  │',
      '  │ reach this NATS server can act as any organization. Fine on a developer machine; │',
      '  │ never in production. `npm run nats -- serve` runs an authenticated one (README). │',
      '  └──────────────────────────────────────────────────────────────────────────────────┘',
      '',
    ].join('\n'),
  );
}

process.env.LOG_FORMAT ??= 'pretty';
// Imported rather than spawned: one Node process runs everything, with no wrapper process beside it.
await import(pathToFileURL(launcher).href);
