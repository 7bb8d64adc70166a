/**
 * Chaos trials (issue 15, item 2) against the cluster of `tools/cluster`: in each trial runs (an
 * action, a database step, a delay and an agent step against a scripted model) and webhook events
 * flow while one random app process, NATS node or Postgres is SIGKILLed at a random moment and
 * restarted at once. Each trial then counts accepted runs lost, runs stuck past the bound, runs
 * failed, finished steps executed again (by their side effects), database rows written twice and
 * events without outcomes, and times how long the cluster took to recover.
 *
 *   npm run build
 *   node dist/tools/chaos/src/main.js [--trials 100] [--load-seconds 10] [--rate 4] [--seed 1]
 *        [--victims runner-0,postgres] [--out chaos.json]
 *
 * Per-trial lines go to stderr; the summary (and, with --out, every trial) is JSON.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { distribution, LocalCluster, runChaosTrials, ScriptedModel, type TrialResult } from '#testing';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '100' },
    'load-seconds': { type: 'string', default: '10' },
    rate: { type: 'string', default: '4' },
    'stuck-after': { type: 'string', default: '120000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    victims: { type: 'string' },
    out: { type: 'string' },
  },
});
const log = (line: string) => process.stderr.write(`[chaos ${new Date().toISOString()}] ${line}\n`);

/** mulberry32: a seeded generator, so `--seed` replays the same victims and moments. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const kindOf = (victim: string) => victim.replace(/-\d+$/, '');

function summarize(results: TrialResult[]) {
  const sum = (pick: (result: TrialResult) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  const byKind = new Map<string, TrialResult[]>();
  for (const result of results)
    byKind.set(kindOf(result.victim), [...(byKind.get(kindOf(result.victim)) ?? []), result]);
  return {
    trials: results.length,
    runsAccepted: sum((result) => result.runsAccepted),
    eventsAccepted: sum((result) => result.eventsAccepted),
    runsLost: sum((result) => result.runsLost),
    runsStuck: sum((result) => result.runsStuck),
    runsFailed: sum((result) => result.runsFailed),
    doneStepsExecutedTwice: sum((result) => result.doneStepsExecutedTwice),
    databaseWritesRepeated: sum((result) => result.databaseWritesRepeated),
    actionRetriesAfterCrash: sum((result) => result.actionRetriesAfterCrash),
    eventsWithoutOutcome: sum((result) => result.eventsWithoutOutcome),
    abandoned: sum((result) => result.abandoned),
    failures: [...new Set(results.flatMap((result) => result.failures))],
    recoveryMs: distribution(results.map((result) => result.recoveryMs)),
    drainedMs: distribution(results.map((result) => result.drainedMs)),
    byVictim: Object.fromEntries(
      [...byKind].map(([kind, trials]) => [
        kind,
        {
          trials: trials.length,
          backMs: distribution(trials.map((result) => result.backMs)),
          recoveryMs: distribution(trials.map((result) => result.recoveryMs)),
          drainedMs: distribution(trials.map((result) => result.drainedMs)),
        },
      ]),
    ),
  };
}

async function main(): Promise<void> {
  const model = await ScriptedModel.start();
  const began = Date.now();
  const cluster = await LocalCluster.start({
    env: {
      ...model.gatewayEnv,
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      // The trials' own requests would pass the default hourly limit of one key.
      RATE_LIMIT_PER_HOUR: '1000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  });
  log(`cluster started in ${Date.now() - began} ms; seed ${values.seed}`);
  const interrupt = () => {
    log('interrupted: stopping the cluster');
    void Promise.all([cluster.stop(), model.stop()]).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const results = await runChaosTrials(cluster, {
      trials: Number(values.trials),
      loadSeconds: Number(values['load-seconds']),
      runsPerSecond: Number(values.rate),
      stuckAfterMs: Number(values['stuck-after']),
      victims: values.victims?.split(','),
      random: seeded(Number(values.seed)),
      log,
    });
    const summary = { seed: Number(values.seed), ...summarize(results) };
    if (values.out) writeFileSync(values.out, `${JSON.stringify({ summary, results }, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await cluster.stop();
    await model.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
