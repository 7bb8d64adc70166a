/**
 * Footprint benchmark: how long `npm start` takes to answer its first request, and how much memory the
 * whole app holds when idle, in the all-in-one process `npm start` runs and with one process per service
 * as `deploy/` runs them. Each figure is set against its ceiling, measured in the same run: a bare Fastify
 * process (`src/bare-fastify.ts`), the least a Node HTTP server takes to start and to hold.
 *
 *   npm run build && node dist/tools/bench/footprint-bench.js [--starts 3] [--idle 10]
 *
 * `npm start` runs as a user runs it, against the machine's Postgres and NATS (a fresh database and its
 * own subject prefix). Its first start is cold: the build stamp removed, so it builds, and a database
 * with no schema, so every migration runs. The next ones find the build current and the schemas made.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import {
  createDatabase,
  databaseUrl,
  dropDatabase,
  freePort,
  commandOf,
  processTreeOf,
  TestStack,
  WORKSPACE_ROOT,
} from '#testing';

import { argument, benchContext, rssMiB } from './src/context.js';

const starts = Number(argument('starts', '3'));
const idleSeconds = Number(argument('idle', '10'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function firstAnswer(url: string, child: ChildProcess, began: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before answering`);
    const response = await fetch(url).catch(() => undefined);
    if (response?.ok) return (performance.now() - began) / 1000;
    await sleep(20);
  }
}

async function stopTree(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGINT');
  await exited;
}

interface Start {
  seconds: number;
  appMiB: number;
  wrapperMiB: number;
}

async function bareFastify(): Promise<Start> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'dist/tools/bench/src/bare-fastify.js')], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
    detached: true,
  });
  const seconds = await firstAnswer(`http://127.0.0.1:${port}/api/v1/projects/x`, child, began);
  await sleep(idleSeconds * 1000);
  const appMiB = rssMiB(child.pid ?? -1);
  await stopTree(child);
  return { seconds, appMiB, wrapperMiB: 0 };
}

async function npmStart(env: Record<string, string>, port: number): Promise<Start> {
  const began = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  const seconds = await firstAnswer(`http://127.0.0.1:${port}/api/health`, child, began);
  await sleep(idleSeconds * 1000);
  let appMiB = 0;
  let wrapperMiB = 0;
  for (const pid of processTreeOf(child.pid ?? -1)) {
    // `npm` runs `sh -c "node tools/dev/start.mjs"`, and that node process is the all-in-one one; the
    // database service's engine worker is its child.
    if (/^\S*node\s+(tools\/dev\/start\.mjs|\S*engine\.worker\.js)/.test(commandOf(pid)))
      appMiB += rssMiB(pid);
    else wrapperMiB += rssMiB(pid);
  }
  await stopTree(child);
  return { seconds, appMiB, wrapperMiB };
}

async function stackMiB(allInOne: boolean): Promise<{ miB: number; processes: number }> {
  const stack = await TestStack.start({ LOG_LEVEL: 'warn' }, { allInOne });
  try {
    await sleep(idleSeconds * 1000);
    const pids = [...stack.processes.values()].map((service) => service.child.pid ?? -1);
    // A process's children count with it: the database service's engine worker holds its databases.
    const tree = pids.flatMap(processTreeOf);
    return { miB: tree.reduce((sum, pid) => sum + rssMiB(pid), 0), processes: pids.length };
  } finally {
    await stack.stop();
  }
}

const context = benchContext();
const id = Date.now().toString(36);
const databaseName = `fm_bench_${id}`;
await createDatabase(databaseName);
const env = { DATABASE_URL: databaseUrl(databaseName), NATS_SUBJECT_PREFIX: `bench_${id}.` };
try {
  const bare: Start[] = [];
  for (let index = 0; index < starts; index++) bare.push(await bareFastify());

  rmSync(join(WORKSPACE_ROOT, 'dist', '.build-stamp'), { force: true });
  const cold = await npmStart(env, await freePort());
  const warm: Start[] = [];
  for (let index = 0; index < starts; index++) warm.push(await npmStart(env, await freePort()));

  const separate = await stackMiB(false);
  const shared = await stackMiB(true);

  const bareSeconds = median(bare.map((start) => start.seconds));
  const bareMiB = median(bare.map((start) => start.appMiB));
  const warmSeconds = median(warm.map((start) => start.seconds));
  const warmMiB = median(warm.map((start) => start.appMiB));
  const share = (ceiling: number, figure: number) => `${Math.round((ceiling / figure) * 100)}%`;
  console.log(
    [
      context.line,
      '',
      '| figure | value | ceiling (bare Fastify) | ceiling / value |',
      '| --- | --- | --- | --- |',
      `| \`npm start\` to first answer, build current (median of ${starts}: ${warm.map((start) => round(start.seconds, 2)).join(', ')} s) | ${round(warmSeconds, 2)} s | ${round(bareSeconds, 2)} s | ${share(bareSeconds, warmSeconds)} |`,
      `| \`npm start\` to first answer, cold (build and every migration) | ${round(cold.seconds, 2)} s | ${round(bareSeconds, 2)} s | ${share(bareSeconds, cold.seconds)} |`,
      `| idle RSS, the all-in-one process under \`npm start\` | ${Math.round(warmMiB)} MiB | ${Math.round(bareMiB)} MiB | ${share(bareMiB, warmMiB)} |`,
      `| idle RSS, \`npm\` and \`sh\` around it | ${Math.round(median(warm.map((start) => start.wrapperMiB)))} MiB | | |`,
      `| idle RSS, all-in-one, JSON logs (test stack) | ${Math.round(shared.miB)} MiB in ${shared.processes} process | ${Math.round(bareMiB)} MiB | ${share(bareMiB, shared.miB)} |`,
      `| idle RSS, one process per app (test stack) | ${Math.round(separate.miB)} MiB in ${separate.processes} processes | ${Math.round(bareMiB * separate.processes)} MiB (${separate.processes} × bare) | ${share(bareMiB * separate.processes, separate.miB)} |`,
    ].join('\n'),
  );
} finally {
  await dropDatabase(databaseName).catch(() => undefined);
}
