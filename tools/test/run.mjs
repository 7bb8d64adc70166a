// `npm test`: builds, runs the quality gates (types, lint, format, table types) and every Jest test,
// then prints one line `N passed, N failed` in which each gate counts as one check beside the tests.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const jestArgs = process.argv.slice(2);
const bin = (name) => join('node_modules', '.bin', name);

function step(name, command, args, env = {}) {
  console.log(`\n▶ ${name}`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = result.status === 0;
  console.log(`${ok ? '✔' : '✘'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return ok;
}

let passed = 0;
let failed = 0;
const count = (ok) => (ok ? passed++ : failed++);

/**
 * Runs the quality gates at once (each is single-threaded, and together they take half the time they
 * take in a row on two cores); each one's output is printed whole when it ends.
 */
async function gates(list) {
  const started = Date.now();
  const outcomes = await Promise.all(
    list.map(
      ([name, command, args, env = {}]) =>
        new Promise((resolve) => {
          const child = spawn(command, args, { env: { ...process.env, ...env } });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('error', (error) => resolve({ name, ok: false, output: `${output}${error.message}\n` }));
          child.on('close', (code) => {
            const outcome = { name, ok: code === 0, output, seconds: (Date.now() - started) / 1000 };
            console.log(`${outcome.ok ? '✔' : '✘'} ${name} (${outcome.seconds.toFixed(1)} s)`);
            resolve(outcome);
          });
        }),
    ),
  );
  for (const { name, ok, output } of outcomes) {
    if (output.trim() !== '') console.log(`\n▶ ${name}${ok ? '' : ' (failed)'}\n${output.trimEnd()}`);
    count(ok);
  }
}

const built = step('build', 'npm', ['run', '--silent', 'build']);
count(built);
if (jestArgs.length === 0) {
  console.log('\n▶ typecheck, lint, format and table types, at once');
  await gates([
    ['typecheck', 'npm', ['run', '--silent', 'typecheck']],
    ['lint', 'npm', ['run', '--silent', 'lint'], { NX_DAEMON: 'false', NX_NO_CLOUD: 'true' }],
    ['format', bin('prettier'), ['--check', '.', '--log-level=warn']],
    // The committed table types against a database freshly migrated from the migrations in the tree.
    ['table types', 'npm', ['run', '--silent', 'db:types:check']],
  ]);
}

if (built) {
  const dir = mkdtempSync(join(tmpdir(), 'flowmesh-jest-'));
  const summaryFile = join(dir, 'summary.json');
  // Three workers on two cores: the end-to-end files spend much of their time waiting on real
  // timeouts (a silence window, a lease, a delay), which a third file fills; 460 s → 400 s.
  step('jest', process.execPath, ['--experimental-vm-modules', bin('jest'), '--maxWorkers=3', ...jestArgs], {
    TEST_SUMMARY_FILE: summaryFile,
    NODE_NO_WARNINGS: '1',
  });
  if (existsSync(summaryFile)) {
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    passed += summary.passed;
    failed += summary.failed;
  } else {
    console.log('jest ended without a summary (its set-up failed)');
    failed += 1;
  }
  rmSync(dir, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
