// `npm test`: builds, runs the quality gates (types, lint, format) and every Jest test, then prints
// one line `N passed, N failed` in which each gate counts as one check beside the tests.
import { spawnSync } from 'node:child_process';
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

const built = step('build', 'npm', ['run', '--silent', 'build']);
count(built);
if (jestArgs.length === 0) {
  count(step('typecheck', bin('tsc'), ['-p', 'tsconfig.json']));
  count(step('lint', 'npm', ['run', '--silent', 'lint'], { NX_DAEMON: 'false', NX_NO_CLOUD: 'true' }));
  count(step('format', bin('prettier'), ['--check', '.', '--log-level=warn']));
}

if (built) {
  const dir = mkdtempSync(join(tmpdir(), 'flowmesh-jest-'));
  const summaryFile = join(dir, 'summary.json');
  step('jest', process.execPath, ['--experimental-vm-modules', bin('jest'), '--maxWorkers=2', ...jestArgs], {
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
