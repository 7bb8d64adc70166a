// `npm start`: builds, makes sure Postgres and NATS answer, runs every service's migrations, then
// serves every app with readable logs. Ctrl-C stops them all.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

run('npm', ['run', '--silent', 'build']);
if (!process.env.SKIP_DEV_STACK) run('bash', ['tools/dev/dev-stack.sh']);

const apps = readdirSync(join(root, 'apps'))
  .filter((name) => existsSync(join(root, 'apps', name, 'project.json')))
  .filter((name) =>
    JSON.parse(readFileSync(join(root, 'apps', name, 'project.json'), 'utf8')).tags?.includes('type:app'),
  )
  .filter((name) => existsSync(join(root, 'dist', 'apps', name, 'src', 'main.js')));

for (const app of apps) {
  const migrate = join('dist', 'apps', app, 'src', 'migrate.js');
  if (existsSync(join(root, migrate))) run(process.execPath, [migrate]);
}

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

const env = { ...process.env, LOG_FORMAT: process.env.LOG_FORMAT ?? 'pretty' };
// Services first, the gateway last, so the first request finds someone to answer it.
const order = [...apps.filter((app) => app !== 'gateway'), ...apps.filter((app) => app === 'gateway')];
const children = order.map((app) =>
  spawn(process.execPath, [join('dist', 'apps', app, 'src', 'main.js')], {
    cwd: root,
    env,
    stdio: 'inherit',
  }),
);

let stopping = false;
const stop = (code) => {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 5_000).unref();
};
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
for (const [index, child] of children.entries()) {
  child.on('exit', (code) => {
    if (!stopping) {
      console.error(`${order[index]} exited with code ${code}; stopping the others`);
      stop(code ?? 1);
    }
  });
}
