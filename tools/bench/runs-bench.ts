/**
 * Runs benchmark: completed runs per second and start-to-complete latency of a 3-node workflow
 * (api trigger → condition → condition), every step recorded, at several numbers of concurrent
 * clients. Each client starts a run over HTTP (through the gateway, with an organization key) and
 * waits until the runner announces that run complete, then starts the next.
 *
 *   npm run build && node dist/tools/bench/runs-bench.js [--seconds 20] [--clients 1,10,50] [--mode prefer]
 *     [--ceiling] [--processes all-in-one|separate]
 *
 * It starts a stack of its own (fresh database, own NATS prefix): the all-in-one process `npm start`
 * runs, or with `--processes separate` one process per service as `deploy/` runs them. The completion notice is the runner's `runner.events.run-changed.<runId>` message
 * on core NATS with a final status; a client that misses one notices by reading the run after a second.
 * With `--mode prefer` a client instead sends `Prefer: wait=60` and counts the run complete from that
 * one answer, as an API user would (docs/runs.md, "Live runs").
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';

import { FINAL_RUN_STATUSES, type RunChangedEvent, RunnerSubjects } from '#contracts';
import { connectAs, createOrganization, TestStack } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';

// The ceiling sends the start path's statements as the services' repositories build them, so it
// imports those repositories: a copy of their SQL here measured a stale statement once it changed.
/* eslint-disable @nx/enforce-module-boundaries */
import { kyselyOn } from '#persistence';
import { UsageRepository } from '../../apps/catalog/src/billing/usage.repository.js';
import type { DB as CatalogTables } from '../../apps/catalog/src/catalog.tables.js';
import type { RunWithSteps } from '../../apps/runner/src/engine/run-state.js';
import type { DB as RunnerTables } from '../../apps/runner/src/runner.tables.js';
import type { NewRun } from '../../apps/runner/src/runs/new-run.js';
import { RunRepository } from '../../apps/runner/src/runs/run.repository.js';
import { UNGATED } from '../../apps/runner/src/start/run-flow.js';
import type { DB as WorkflowTables } from '../../apps/workflow/src/workflow.tables.js';
import { WorkflowRepository } from '../../apps/workflow/src/workflows/workflow.repository.js';
/* eslint-enable @nx/enforce-module-boundaries */

import { BENCH_RUN_BODY, publishBenchWorkflow } from './src/bench-workflow.js';
import { argument, benchContext } from './src/context.js';
import { cpuSecondsOf, machineTicks, pidsNamed } from './src/measure.js';

interface Options {
  seconds: number;
  warmupSeconds: number;
  clients: number[];
  /** `notice`: wait for the runner's change notice on NATS; `prefer`: the start's own answer. */
  mode: 'notice' | 'prefer';
  /** Also measure the ceiling: the Postgres statements of each run, sent by this process alone. */
  ceiling: boolean;
  /** Every app in one process (as `npm start`), or one process per service (as `deploy/`). */
  allInOne: boolean;
}

function options(): Options {
  return {
    seconds: Number(argument('seconds', '20')),
    warmupSeconds: Number(argument('warmup', '3')),
    clients: argument('clients', '1,10,50').split(',').map(Number),
    mode: argument('mode', 'notice') === 'prefer' ? 'prefer' : 'notice',
    ceiling: process.argv.includes('--ceiling'),
    allInOne: argument('processes', 'all-in-one') !== 'separate',
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

interface LevelResult {
  clients: number;
  completed: number;
  runsPerSecond: number;
  startP50: number;
  startP99: number;
  completeP50: number;
  completeP99: number;
  queueP50: number;
  executeP50: number;
  errors: number;
  generatorCpu: number;
  machineCpu: number;
  cpuByProcess: Record<string, number>;
}

/**
 * The ceiling: what a run start costs Postgres alone, sent by this process over a pool of one
 * connection per client, each client a closed loop. Per run, the three statements the stack sends on
 * its start path, built by the services' own repositories (so the ceiling follows them when they
 * change): workflow's run target (`WorkflowRepository.findRunTarget`, the live version held, so
 * without its diagram), catalog's run count (`UsageRepository.consumeRun`) and the runner's insert
 * of the run with its three steps, complete (`RunRepository.insertStarted`). Each run is a copy of
 * one the stack recorded, under a new id.
 */
async function ceilingLevel(
  url: string,
  template: RunWithSteps,
  clients: number,
  seconds: number,
): Promise<{ clients: number; runsPerSecond: number; p50: number; p99: number }> {
  const dataSource = new DataSource({ type: 'postgres', url, extra: { max: clients } });
  await dataSource.initialize();
  const workflows = new WorkflowRepository(kyselyOn<WorkflowTables>(dataSource));
  const usage = new UsageRepository(kyselyOn<CatalogTables>(dataSource));
  const runs = new RunRepository(kyselyOn<RunnerTables>(dataSource));
  const limits = { byPlan: { free: 1_000, pro: 100_000, enterprise: 10_000_000 }, fallback: 1_000 };
  const { run } = template;
  const latencies: number[] = [];
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      const began = performance.now();
      const now = new Date();
      const copy: NewRun = {
        id: randomUUID(),
        organizationId: run.organizationId,
        workflowId: run.workflowId,
        workflowName: run.workflowName,
        projectId: run.projectId,
        version: run.version,
        trigger: run.trigger,
        triggerNodeId: run.triggerNodeId ?? '',
        createdBy: run.createdBy,
        principal: run.principal,
        input: run.input,
        diagram: run.diagram,
        timeZone: run.timeZone,
        idempotencyKey: null,
        idempotencyFingerprint: null,
        triggerOutput: template.steps[0]?.output ?? {},
        createdAt: now,
        rerunOf: null,
        traceParent: null,
        errorOfRunId: null,
        flow: UNGATED,
      };
      await workflows.findRunTarget(run.organizationId, run.workflowId, false, run.version);
      await usage.consumeRun(run.organizationId, copy.id, limits, now);
      await runs.insertStarted(
        copy,
        30_000,
        template.steps.map((step) => ({ ...step, startedAt: now })),
        { status: 'complete', reply: run.reply ?? '' },
      );
      latencies.push(performance.now() - began);
    }
  };
  const started = performance.now();
  const loops = Array.from({ length: clients }, () => loop());
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  stopping = true;
  await Promise.all(loops);
  const wall = (performance.now() - started) / 1000;
  await dataSource.destroy();
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    clients,
    runsPerSecond: round(latencies.length / wall),
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
  };
}

async function main(): Promise<void> {
  const settings = options();
  // BENCH_STACK_ENV (JSON) adds settings to every service, e.g. RUNNER_START_MODE or NODE_OPTIONS.
  const context = benchContext();
  const stack = await TestStack.start(
    {
      RATE_LIMIT_PER_HOUR: '100000000',
      LOG_LEVEL: 'warn',
      ...(JSON.parse(process.env.BENCH_STACK_ENV ?? '{}') as Record<string, string>),
    },
    { allInOne: settings.allInOne },
  );
  const nats = await connectAs(stack.description, 'gateway');
  const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
  await db.connect();
  try {
    const org = await createOrganization(stack.description, { plan: 'enterprise' });
    const project = await org.api.post('/api/v1/projects', { name: 'Bench' });
    const workflowId = await publishBenchWorkflow(org.api, project.body.id as string, 'Bench');

    const url = new URL(`${stack.baseUrl}/api/v1/workflows/${workflowId}/runs`);
    const body = BENCH_RUN_BODY;
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });

    // Completion notices, by run id; a notice may arrive before the start's 201 does.
    const waiters = new Map<string, (status: string) => void>();
    const early = new Map<string, string>();
    if (settings.mode === 'notice')
      nats.subscribe(`${stack.env.NATS_SUBJECT_PREFIX}${RunnerSubjects.runChanged.bare}.*`, {
        callback: (_error, message) => {
          const event = message.json<RunChangedEvent>();
          if (!FINAL_RUN_STATUSES.includes(event.status)) return;
          const waiter = waiters.get(event.runId);
          if (waiter) waiter(event.status);
          else early.set(event.runId, event.status);
        },
      });

    const start = () =>
      new Promise<{ status: number; id: string; runStatus: string }>((resolve, reject) => {
        const call = request(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${org.apiKey}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              ...(settings.mode === 'prefer' ? { prefer: 'wait=60' } : {}),
            },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => {
              const parsed = JSON.parse(text) as { id?: string; status?: string };
              resolve({
                status: response.statusCode ?? 0,
                id: parsed.id ?? '',
                runStatus: parsed.status ?? '',
              });
            });
          },
        );
        call.on('error', reject);
        call.end(body);
      });

    const completion = (runId: string) =>
      new Promise<string>((resolve) => {
        const known = early.get(runId);
        if (known) {
          early.delete(runId);
          resolve(known);
          return;
        }
        const timer = setTimeout(() => {
          waiters.delete(runId);
          org.api.get(`/api/v1/runs/${runId}`).then(
            (run) => resolve((run.body.status as string | undefined) ?? 'lost'),
            () => resolve('lost'),
          );
        }, 5_000);
        waiters.set(runId, (status) => {
          clearTimeout(timer);
          waiters.delete(runId);
          resolve(status);
        });
      });

    const results: LevelResult[] = [];
    for (const clients of settings.clients) {
      const startLatencies: number[] = [];
      const completeLatencies: number[] = [];
      const measuredRuns: string[] = [];
      let errors = 0;
      let measuring = false;
      let stopping = false;

      const client = async () => {
        while (!stopping) {
          const began = performance.now();
          const started = await start().catch(() => ({ status: 0, id: '', runStatus: '' }));
          const accepted = performance.now();
          if (started.status !== 201) {
            errors += 1;
            continue;
          }
          const status = settings.mode === 'prefer' ? started.runStatus : await completion(started.id);
          const completed = performance.now();
          if (!measuring || stopping) continue;
          if (status !== 'complete') errors += 1;
          startLatencies.push(accepted - began);
          completeLatencies.push(completed - began);
          measuredRuns.push(started.id);
        }
      };

      const workers = Array.from({ length: clients }, () => client());
      await new Promise((resolve) => setTimeout(resolve, settings.warmupSeconds * 1000));
      const processes = [...stack.processes.entries()].map(
        ([name, service]) => [name, service.child.pid ?? 0] as const,
      );
      const cpuOf = () => {
        const byName: Record<string, number> = {};
        for (const [name, pid] of processes) byName[name] = cpuSecondsOf(pid);
        byName.postgres = pidsNamed('postgres').reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
        byName['nats-server'] = pidsNamed('nats-server').reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
        return byName;
      };
      const cpuBefore = cpuOf();
      const generatorBefore = process.cpuUsage();
      const ticksBefore = machineTicks();
      const wallStart = performance.now();
      measuring = true;
      await new Promise((resolve) => setTimeout(resolve, settings.seconds * 1000));
      stopping = true;
      const wall = (performance.now() - wallStart) / 1000;
      const generator = process.cpuUsage(generatorBefore);
      const ticksAfter = machineTicks();
      const cpuAfter = cpuOf();
      await Promise.all(workers);

      // Where a run's time goes, from its own timestamps: accepted → picked up → finished.
      const timings = await db.query<{ queue_ms: number; execute_ms: number }>(
        `SELECT extract(epoch FROM started_at - created_at) * 1000 AS queue_ms,
                extract(epoch FROM finished_at - started_at) * 1000 AS execute_ms
         FROM runner.runs WHERE id = ANY($1)`,
        [measuredRuns],
      );
      const steps = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM runner.run_steps WHERE run_id = ANY($1) AND status = 'done'`,
        [measuredRuns],
      );
      if (steps.rows[0]?.n !== measuredRuns.length * 3) {
        throw new Error(`expected ${measuredRuns.length * 3} recorded steps, found ${steps.rows[0]?.n}`);
      }
      const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
      const starts = sorted(startLatencies);
      const completes = sorted(completeLatencies);
      const queue = sorted(timings.rows.map((row) => Number(row.queue_ms)));
      const execute = sorted(timings.rows.map((row) => Number(row.execute_ms)));
      const cores = 2;
      results.push({
        clients,
        completed: measuredRuns.length,
        runsPerSecond: round(measuredRuns.length / wall),
        startP50: round(percentile(starts, 50)),
        startP99: round(percentile(starts, 99)),
        completeP50: round(percentile(completes, 50)),
        completeP99: round(percentile(completes, 99)),
        queueP50: round(percentile(queue, 50)),
        executeP50: round(percentile(execute, 50)),
        errors,
        generatorCpu: round(((generator.user + generator.system) / 1e6 / wall / cores) * 100),
        machineCpu: round(
          ((ticksAfter.busy - ticksBefore.busy) / Math.max(1, ticksAfter.total - ticksBefore.total)) * 100,
        ),
        cpuByProcess: Object.fromEntries(
          Object.keys(cpuAfter).map((name) => [
            name,
            round((((cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0)) / wall / cores) * 100),
          ]),
        ),
      });
      console.error(JSON.stringify(results.at(-1)));
    }

    const names = Object.keys(results[0]?.cpuByProcess ?? {});
    const lines = [
      '| clients | completed runs/s | start → complete p50 / p99 ms | start (201) p50 / p99 ms | queued p50 ms | executing p50 ms | errors | load generator CPU | machine CPU |',
      '|---|---|---|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.clients} | ${r.runsPerSecond} | ${r.completeP50} / ${r.completeP99} | ${r.startP50} / ${r.startP99} | ${r.queueP50} | ${r.executeP50} | ${r.errors} | ${r.generatorCpu} % | ${r.machineCpu} % |`,
      ),
      '',
      `| clients | ${names.join(' | ')} |`,
      `|---|${names.map(() => '---').join('|')}|`,
      ...results.map(
        (r) => `| ${r.clients} | ${names.map((name) => `${r.cpuByProcess[name]} %`).join(' | ')} |`,
      ),
    ];
    console.log(
      [
        `${context.line}; ${settings.allInOne ? 'all-in-one process' : 'one process per service'}, --mode ${settings.mode}`,
        '',
        ...lines,
      ].join('\n'),
    );
    // One row of the dated regression-guard table in docs/benchmarks.md (tools/bench/guard.sh).
    console.log(
      `\n| ${context.date.slice(0, 10)} | \`${context.commit}\` | ${process.version} | ${results
        .map((r) => `${r.clients}: ${r.runsPerSecond} runs/s, ${r.completeP50} / ${r.completeP99} ms`)
        .join(' | ')} | ${context.loadavg.split(' ')[0]} |`,
    );
    agent.destroy();

    if (settings.ceiling) {
      const recorded = await db.query<{ id: string }>(
        `SELECT id FROM runner.runs WHERE workflow_id = $1 AND status = 'complete' LIMIT 1`,
        [workflowId],
      );
      const reader = new DataSource({ type: 'postgres', url: stack.env.DATABASE_URL, extra: { max: 1 } });
      await reader.initialize();
      const template = await new RunRepository(kyselyOn<RunnerTables>(reader)).find(
        org.organizationId,
        recorded.rows[0]?.id ?? '',
      );
      await reader.destroy();
      if (!template) throw new Error('no complete run to copy for the ceiling');
      const ceiling = [];
      for (const clients of settings.clients) {
        ceiling.push(await ceilingLevel(stack.env.DATABASE_URL, template, clients, settings.seconds));
        console.error(JSON.stringify({ ceiling: ceiling.at(-1) }));
      }
      console.log(
        [
          '',
          '| clients | ceiling runs/s | ceiling p50 / p99 ms | API runs/s as a share of it |',
          '|---|---|---|---|',
          ...ceiling.map((c) => {
            const api = results.find((r) => r.clients === c.clients);
            const share = api ? `${round((api.runsPerSecond / c.runsPerSecond) * 100)} %` : '';
            return `| ${c.clients} | ${c.runsPerSecond} | ${c.p50} / ${c.p99} | ${share} |`;
          }),
        ].join('\n'),
      );
    }
  } finally {
    await nats.drain();
    await db.end();
    await stack.stop();
  }
}

await main();
