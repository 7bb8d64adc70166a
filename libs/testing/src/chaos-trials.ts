import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { requireData } from './api-client.js';
import { queryDatabase } from './databases.js';
import { chainOf, nodes } from './diagrams.js';
import type { LocalCluster } from './local-cluster.js';
import { ClusterWorkload } from './cluster-proof.js';
import {
  type Accepted,
  type LoadSender,
  percentile,
  runSender,
  settledRuns,
  SteadyLoad,
} from './run-load.js';
import { waitFor } from './wait.util.js';
import { createConnection, deliver, signedDelivery } from './webhooks.js';

/** What a trial may kill: an app process by name (`runner-1`), a NATS node (`nats-2`) or `postgres`. */
export type Victim = string;

export interface TrialResult {
  trial: number;
  victim: Victim;
  /** When the victim was killed, in seconds after the load started. */
  killedAtSeconds: number;
  /** From the kill until the victim was back: ready, or listening for a NATS node or Postgres. */
  backMs: number;
  /** From the kill until a run started after the victim was back had completed through every gateway. */
  recoveryMs: number;
  /** From the kill until every run and event accepted in the trial had ended. */
  drainedMs: number;
  runsAccepted: number;
  eventsAccepted: number;
  /** Accepted runs with no row. */
  runsLost: number;
  /** Accepted runs not ended `stuckAfterMs` after the load stopped. */
  runsStuck: number;
  /** Runs that ended other than `complete`, with their errors. */
  runsFailed: number;
  failures: string[];
  /** Action calls that found their step already `done`. */
  doneStepsExecutedTwice: number;
  /** Database rows written twice by one run's `database` step (its at-least-once retry). */
  databaseWritesRepeated: number;
  /** Action calls that repeated an idempotency key of a step still `running`. */
  actionRetriesAfterCrash: number;
  /** Accepted deliveries with no event, or whose event has no outcome for the trigger. */
  eventsWithoutOutcome: number;
  abandoned: number;
}

export interface ChaosOptions {
  trials: number;
  /** How long runs and events flow in each trial; the kill comes at a random moment within it. */
  loadSeconds: number;
  runsPerSecond: number;
  /** A run not ended this long after its trial's load stopped counts as stuck. */
  stuckAfterMs: number;
  /** Victims to draw from; every app process, NATS node and Postgres when not given. */
  victims?: Victim[];
  random?: () => number;
  log?: (line: string) => void;
}

/** Everything a trial may kill in `cluster`. */
export function victimsOf(cluster: LocalCluster): Victim[] {
  // Sorted, so a seed draws the same victims whatever order the processes became ready in.
  return [...cluster.processes.keys()].sort().concat(
    cluster.nats.nodes.map((_, index) => `nats-${index}`),
    'postgres',
  );
}

/**
 * The workload of the chaos trials: two workflows with every kind of step that touches another
 * service (an action that records its side effect in the ledger, a `database` step that inserts the
 * run's key into a DuckDB table, a one-second delay, an agent step against the scripted model), each
 * on a database of its own, so that with two database replicas each holds one; and a workflow
 * started by webhook deliveries.
 */
class ChaosWorkload {
  private constructor(
    readonly base: ClusterWorkload,
    readonly runWorkflowIds: string[],
    readonly hook: { connectionId: string; secret: string },
    readonly eventWorkflowId: string,
    readonly databaseIds: string[],
  ) {}

  static async create(cluster: LocalCluster): Promise<ChaosWorkload> {
    const base = await ClusterWorkload.create(cluster, 4);
    const agent = requireData(
      await base.api.POST('/api/v1/agents', { body: { name: 'chaos', instructions: 'Answer ok.' } }),
      201,
      'agent',
    );
    const databaseIds: string[] = [];
    const runWorkflowIds: string[] = [];
    // One after the other: each new database goes to the replica holding the fewest.
    for (const name of ['chaos-a', 'chaos-b']) {
      const database = requireData(
        await base.api.POST('/api/v1/databases', { body: { name } }),
        201,
        'database',
      );
      const table = await queryDatabase(base.api, database.id, [
        { sql: 'CREATE TABLE effects (key VARCHAR, written_at TIMESTAMP DEFAULT now())', params: [] },
      ]);
      requireData(table, 200, 'table');
      databaseIds.push(database.id);
      runWorkflowIds.push(
        await base.publish(
          `Chaos runs ${name}`,
          chainOf(
            nodes.trigger('t'),
            base.sideEffect('call'),
            nodes.database('store', database.id, 'INSERT INTO effects (key) VALUES (?)', ['{{trigger.key}}']),
            nodes.delay('wait', 1),
            nodes.agent('ask', agent.id, 'Say ok.'),
          ),
        ),
      );
    }
    const created = await createConnection(cluster.description, base.organizationId, 'webhook');
    const hook = { connectionId: created.connectionId, secret: created.secret! };
    const eventWorkflowId = await base.publish(
      'Chaos events',
      chainOf(nodes.webhook('hook', hook.connectionId), base.sideEffect('notify')),
    );
    return new ChaosWorkload(base, runWorkflowIds, hook, eventWorkflowId, databaseIds);
  }

  senders(): LoadSender[] {
    const [keyA, keyB, keyC] = this.base.apiKeys;
    const [first, second] = this.runWorkflowIds as [string, string];
    const events: LoadSender = {
      kind: 'event',
      send: async (gateway, key) => {
        const answer = await deliver(
          gateway,
          this.hook.connectionId,
          signedDelivery(this.hook.secret, { key }, { id: key }),
        );
        return answer.status === 202 ? key : undefined;
      },
    };
    // Three runs to one event, the runs alternately on each database.
    return [runSender(first, keyA!), runSender(second, keyB!), runSender(first, keyC!), events];
  }

  /** A run started now, for the recovery probes. */
  probe(): LoadSender {
    return runSender(this.runWorkflowIds[0]!, this.base.apiKeys[3]!);
  }

  /** How many rows the database steps wrote for each key, read through the API. */
  async databaseRows(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const databaseId of this.databaseIds) {
      const answer = await queryDatabase(this.base.api, databaseId, [
        { sql: 'SELECT key, count(*) AS n FROM effects GROUP BY key', params: [] },
      ]);
      const { rows } = requireData(answer, 200, 'effects').results[0]!;
      for (const [key, count] of rows as Array<[string, string | number]>) {
        counts.set(key, (counts.get(key) ?? 0) + Number(count));
      }
    }
    return counts;
  }
}

/** Kills the victim and brings it back at once, as Kubernetes restarts a failed container. */
async function killAndRestart(cluster: LocalCluster, victim: Victim): Promise<void> {
  if (victim === 'postgres') {
    await cluster.postgres.crash();
    await cluster.postgres.resume();
  } else if (victim.startsWith('nats-')) {
    const node = cluster.nats.nodes[Number(victim.slice(5))]!;
    await node.kill();
    await node.resume();
  } else {
    await cluster.kill(victim);
    await cluster.restart(victim);
  }
}

/** Resolves once a run started now completes through every gateway in turn. */
async function probeUntilHealthy(cluster: LocalCluster, sender: LoadSender, pool: pg.Pool): Promise<void> {
  for (const gateway of cluster.gateways) {
    let lastProbe = 'no probe sent';
    await waitFor(
      async () => {
        let id: string | undefined;
        try {
          id = await sender.send(gateway, randomUUID());
        } catch (error) {
          lastProbe = `not accepted: ${String(error)}`;
          return undefined;
        }
        if (!id) {
          lastProbe = 'not accepted';
          return undefined;
        }
        const ended = await settledRuns(pool, [id], 15_000);
        if (ended.get(id)?.status === 'complete') return true;
        lastProbe = await describeRun(pool, id);
        return undefined;
      },
      { timeoutMs: 180_000, intervalMs: 250, what: `a run through ${gateway} to complete` },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; the last probe: ${lastProbe}${exitedProcesses(cluster)}`);
    });
  }
}

/** The cluster's processes that ended by themselves, with the end of what each wrote. */
function exitedProcesses(cluster: LocalCluster): string {
  const exited = [...cluster.processes.values()].filter(
    ({ process }) => process.child.exitCode !== null || process.child.signalCode !== null,
  );
  return exited
    .map(
      ({ name, process }) => `\n--- ${name} exited; its last output ---\n${process.output().slice(-3_000)}`,
    )
    .join('');
}

/** A run's status and each step's, for a probe that did not complete in time. */
async function describeRun(pool: pg.Pool, runId: string): Promise<string> {
  const { rows: runs } = await pool.query<{
    status: string;
    error: string | null;
    claims: number;
    lease_expires_at: Date | null;
    wake_at: Date | null;
  }>('SELECT status, error, claims, lease_expires_at, wake_at FROM runner.runs WHERE id = $1', [runId]);
  const { rows: steps } = await pool.query<{
    node_id: string;
    status: string;
    attempt: number;
    error: string | null;
  }>('SELECT node_id, status, attempt, error FROM runner.run_steps WHERE run_id = $1 ORDER BY position', [
    runId,
  ]);
  const run = runs[0];
  if (!run) return `run ${runId} has no row`;
  const stepList = steps.map(
    (step) => `${step.node_id} ${step.status}#${step.attempt}${step.error ? ` (${step.error})` : ''}`,
  );
  return `run ${runId} ${run.status} (claims ${run.claims}, lease until ${run.lease_expires_at?.toISOString()}, wake at ${run.wake_at?.toISOString()}, error ${run.error}); steps: ${stepList.join(', ') || 'none'}`;
}

/**
 * Issue 15, item 2: trial after trial, runs and events flow while one random process, NATS node or
 * Postgres is SIGKILLed at a random moment and restarted; then everything accepted is accounted for.
 */
export async function runChaosTrials(cluster: LocalCluster, options: ChaosOptions): Promise<TrialResult[]> {
  const {
    trials,
    loadSeconds,
    runsPerSecond,
    stuckAfterMs,
    random = Math.random,
    log = () => undefined,
  } = options;
  const victims = options.victims ?? victimsOf(cluster);
  const workload = await ChaosWorkload.create(cluster);
  const pool = new pg.Pool({
    connectionString: cluster.env.DATABASE_URL,
    max: 3,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', () => undefined);
  const probe = workload.probe();
  const results: TrialResult[] = [];
  try {
    for (let trial = 1; trial <= trials; trial += 1) {
      const victim = victims[Math.floor(random() * victims.length)]!;
      const ledgerBefore = workload.base.ledger.effects.length;
      const load = new SteadyLoad(() => cluster.gateways, workload.senders(), { perSecond: runsPerSecond });
      const startedAt = Date.now();
      load.start();
      const killAtMs = 1_000 + random() * (loadSeconds - 2) * 1_000;
      await new Promise((resolve) => setTimeout(resolve, killAtMs));
      const killedAt = Date.now();
      await killAndRestart(cluster, victim);
      const backMs = Date.now() - killedAt;
      log(`trial ${trial}: ${victim} killed and back in ${backMs} ms; probing`);
      await probeUntilHealthy(cluster, probe, pool);
      const recoveryMs = Date.now() - killedAt;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, startedAt + loadSeconds * 1_000 - Date.now())),
      );
      await load.stop();

      const result = await accountFor(load.accepted, workload, pool, stuckAfterMs);
      const drainedMs = Date.now() - killedAt;
      const effects = workload.base.ledger.effects.slice(ledgerBefore);
      const entry: TrialResult = {
        trial,
        victim,
        killedAtSeconds: Math.round((killedAt - startedAt) / 100) / 10,
        backMs,
        recoveryMs,
        drainedMs: result.drained ? drainedMs : Number.NaN,
        ...result.counts,
        doneStepsExecutedTwice: workload.base.ledger.doneStepsRepeated(effects).length,
        actionRetriesAfterCrash: workload.base.ledger.repeatedKeys(effects),
        abandoned: load.abandoned,
      };
      results.push(entry);
      log(
        `trial ${trial}: ${victim} killed at ${entry.killedAtSeconds} s, back ${backMs} ms, recovered ${recoveryMs} ms; ` +
          `${entry.runsAccepted} runs, ${entry.eventsAccepted} events; lost ${entry.runsLost}, stuck ${entry.runsStuck}, ` +
          `failed ${entry.runsFailed}, done twice ${entry.doneStepsExecutedTwice}, db twice ${entry.databaseWritesRepeated}, ` +
          `events without outcome ${entry.eventsWithoutOutcome}${entry.failures.length ? ` (${entry.failures.join('; ')})` : ''}`,
      );
    }
  } finally {
    await pool.end();
    await workload.base.stop();
  }
  return results;
}

async function accountFor(
  accepted: Accepted[],
  workload: ChaosWorkload,
  pool: pg.Pool,
  stuckAfterMs: number,
): Promise<{
  drained: boolean;
  counts: Pick<
    TrialResult,
    | 'runsAccepted'
    | 'eventsAccepted'
    | 'runsLost'
    | 'runsStuck'
    | 'runsFailed'
    | 'failures'
    | 'databaseWritesRepeated'
    | 'eventsWithoutOutcome'
  >;
}> {
  const runs = accepted.filter((item) => item.kind === 'run');
  const events = accepted.filter((item) => item.kind === 'event');
  const deadline = Date.now() + stuckAfterMs;
  const outcomes = await settledRuns(
    pool,
    runs.map((run) => run.id),
    stuckAfterMs,
  );

  // Each accepted delivery must become an event with an outcome for the trigger, and a started run must end.
  const eventOutcomes = async () =>
    (
      await pool.query<{ delivery_id: string; outcome: string | null; run_id: string | null }>(
        `SELECT e.delivery_id, o.outcome, o.run_id FROM events.app_events e
           LEFT JOIN events.event_outcomes o ON o.event_id = e.id AND o.workflow_id = $2
          WHERE e.delivery_id = ANY($1)`,
        [events.map((event) => event.key), workload.eventWorkflowId],
      )
    ).rows;
  let eventRows = await eventOutcomes();
  await waitFor(
    async () => {
      eventRows = await eventOutcomes();
      const withOutcome = eventRows.filter((row) => row.outcome !== null);
      if (withOutcome.length < events.length) return undefined;
      const eventRuns = withOutcome.flatMap((row) => (row.run_id ? [row.run_id] : []));
      const ended = await settledRuns(pool, eventRuns, 1);
      return eventRuns.every((id) => ['complete', 'errored'].includes(ended.get(id)?.status ?? ''))
        ? true
        : undefined;
    },
    {
      timeoutMs: Math.max(1_000, deadline - Date.now()),
      intervalMs: 500,
      what: 'every event to have an outcome',
    },
  ).catch(() => undefined);

  const failures: string[] = [];
  const failed = [...outcomes.values()].filter((run) => ['errored', 'terminated'].includes(run.status));
  if (failed.length > 0) {
    const { rows } = await pool.query<{ error: string | null }>(
      'SELECT error FROM runner.runs WHERE id = ANY($1::uuid[])',
      [failed.map((run) => run.id)],
    );
    failures.push(...new Set(rows.map((row) => String(row.error).slice(0, 160))));
  }
  const rows = await workload.databaseRows().catch(() => new Map<string, number>());
  const runKeys = new Set(runs.map((run) => run.key));
  const stuck = runs.filter((run) => {
    const status = outcomes.get(run.id)?.status;
    return status !== undefined && !['complete', 'errored', 'terminated'].includes(status);
  }).length;
  return {
    drained: stuck === 0,
    counts: {
      runsAccepted: runs.length,
      eventsAccepted: events.length,
      runsLost: runs.filter((run) => !outcomes.has(run.id)).length,
      runsStuck: stuck,
      runsFailed: failed.length,
      failures,
      databaseWritesRepeated: [...rows].filter(([key, count]) => runKeys.has(key) && count > 1).length,
      eventsWithoutOutcome:
        events.length -
        new Set(eventRows.filter((row) => row.outcome !== null).map((row) => row.delivery_id)).size,
    },
  };
}

/** The distribution of a trial figure, for the report. */
export function distribution(values: number[]): {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
} {
  const finite = values.filter(Number.isFinite);
  return {
    n: finite.length,
    p50: Math.round(percentile(finite, 0.5)),
    p90: Math.round(percentile(finite, 0.9)),
    p99: Math.round(percentile(finite, 0.99)),
    max: Math.round(Math.max(0, ...finite)),
  };
}
