import pg from 'pg';

import { adminCli } from './admin-cli.js';
import { ApiClient, requireData } from './api-client.js';
import { chainOf, nodes, type TestDiagram } from './diagrams.js';
import type { LocalCluster } from './local-cluster.js';
import { percentile, type RunOutcome, runSender, settledRuns, SteadyLoad } from './run-load.js';
import { SideEffectLedger } from './side-effect-ledger.js';
import { waitFor } from './wait.util.js';
import { createConnection } from './webhooks.js';

export interface ClusterProofOptions {
  /** How long runs flow; the faults come at a third of it and are repaired at two thirds. */
  seconds: number;
  runsPerSecond: number;
  /** Workflows whose schedules are made due by hand every few seconds while runs flow. */
  scheduledWorkflows: number;
  log?: (line: string) => void;
}

export interface ClusterProofReport {
  runs: {
    accepted: number;
    abandoned: number;
    retriedBeforeAccepted: number;
    lost: number;
    notComplete: number;
    /** Action calls that found their step already `done`. */
    doneStepsExecutedTwice: number;
    /** Action calls that repeated an idempotency key of a step still `running` (at least once). */
    actionRetriesAfterCrash: number;
    /** Complete runs whose action was never called. */
    actionsMissing: number;
    completionMs: Record<
      'before' | 'during' | 'after',
      { runs: number; p50: number; p99: number; max: number }
    >;
  };
  schedules: { dueTimes: number; fired: number; missed: number; unexpected: number };
  rateLimit: {
    limit: number;
    sent: number;
    allowed: number;
    /** How many answers had each status. */
    statuses: Record<string, number>;
    bothGatewaysRefuseAfter: boolean;
  };
  faults: Array<{ what: string; atSeconds: number; readyAfterMs?: number }>;
}

export class ClusterWorkload {
  private constructor(
    readonly organizationId: string,
    readonly apiKeys: string[],
    readonly api: ApiClient,
    readonly projectId: string,
    readonly ledger: SideEffectLedger,
    readonly actionConnectionId: string,
  ) {}

  /**
   * An organization with `keys` API keys (the load spreads over them so no key reaches the hourly
   * rate limit), a project, an `http` connection and a ledger for the actions' side effects.
   */
  static async create(cluster: LocalCluster, keys: number): Promise<ClusterWorkload> {
    const { organizationId, apiKey } = await adminCli<{ organizationId: string; apiKey: string }>(
      ['org', 'create', '--name', 'Cluster proof', '--plan', 'enterprise'],
      cluster.env,
    );
    const more = await Promise.all(
      Array.from({ length: keys - 1 }, () =>
        adminCli<{ apiKey: string }>(['key', 'create', '--org', organizationId], cluster.env),
      ),
    );
    const api = new ApiClient(cluster.gateways[0]!, apiKey);
    const project = requireData(
      await api.POST('/api/v1/projects', { body: { name: 'Cluster proof' } }),
      201,
      'project',
    );
    const ledger = await SideEffectLedger.start(cluster.env.DATABASE_URL!);
    const { connectionId } = await createConnection(cluster.description, organizationId, 'http');
    return new ClusterWorkload(
      organizationId,
      [apiKey, ...more.map((key) => key.apiKey)],
      api,
      project.id,
      ledger,
      connectionId,
    );
  }

  /** An action node that records its call in the ledger. */
  sideEffect(id: string) {
    return nodes.action(
      id,
      'http__request',
      { method: 'POST', url: `${this.ledger.url}/effect`, body: { step: id } },
      { connectionId: this.actionConnectionId },
    );
  }

  async publish(name: string, diagram: TestDiagram): Promise<string> {
    const created = await this.api.POST('/api/v1/projects/{projectId}/workflows', {
      params: { path: { projectId: this.projectId } },
      body: { name, diagram },
    });
    const { id } = requireData(created, 201, 'workflow');
    const published = await this.api.POST('/api/v1/workflows/{id}/publish', {
      params: { path: { id } },
      body: {},
    });
    requireData(published, 201, 'publish');
    return id;
  }

  async stop(): Promise<void> {
    await this.ledger.stop();
  }
}

/**
 * Makes the schedules of `workflowIds` due now, every `everyMs`, and remembers each due time it set.
 * Their cron is yearly, so each row waits a year after it fires: only a row that fired since the last
 * turn (its next run is far away) gets a new due time, and a due time not yet fired is never replaced.
 */
class ScheduleDriver {
  readonly dues: Array<{ workflowId: string; due: Date }> = [];
  private timer?: NodeJS.Timeout;
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly workflowIds: string[],
    private readonly everyMs = 3_000,
  ) {}

  start(): void {
    const tick = () => {
      this.turn = this.makeDue().catch(() => undefined);
    };
    tick();
    this.timer = setInterval(tick, this.everyMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.turn;
  }

  private async makeDue(): Promise<void> {
    const { rows } = await this.pool.query<{ workflow_id: string; next_run_at: Date }>(
      `UPDATE workflow.schedules SET next_run_at = date_trunc('milliseconds', now())
        WHERE workflow_id = ANY($1::uuid[]) AND next_run_at > now() + interval '1 day'
        RETURNING workflow_id, next_run_at`,
      [this.workflowIds],
    );
    for (const row of rows) this.dues.push({ workflowId: row.workflow_id, due: row.next_run_at });
  }

  expectedKeys(): Set<string> {
    return new Set(
      this.dues.map(({ workflowId, due }) => `schedule:${workflowId}:nightly:${due.toISOString()}`),
    );
  }
}

const summary = (values: number[]) => ({
  runs: values.length,
  p50: Math.round(percentile(values, 0.5)),
  p99: Math.round(percentile(values, 0.99)),
  max: Math.round(Math.max(0, ...values)),
});

/**
 * Issue 15, item 1: while runs flow at a steady rate through every gateway and schedules come due,
 * kill one runner and one NATS node, bring them back, and count what the cluster lost, ran twice or
 * let through. The report is what `docs/reliability.md` publishes; the e2e test asserts it is clean.
 */
export async function proveCluster(
  cluster: LocalCluster,
  { seconds, runsPerSecond, scheduledWorkflows, log = () => undefined }: ClusterProofOptions,
): Promise<ClusterProofReport> {
  const limit = Number(cluster.env.RATE_LIMIT_PER_HOUR ?? 1000);
  // Each key stays under two thirds of the limit, retries included.
  const keys = Math.max(1, Math.ceil((seconds * runsPerSecond * 1.5) / (limit * 0.66)));
  const workload = await ClusterWorkload.create(cluster, keys);
  const pool = new pg.Pool({ connectionString: cluster.env.DATABASE_URL, max: 3 });
  pool.on('error', () => undefined);
  try {
    const workflowId = await workload.publish(
      'Steady runs',
      chainOf(nodes.trigger('t'), workload.sideEffect('call'), nodes.delay('wait', 1)),
    );
    const scheduled = await Promise.all(
      Array.from({ length: scheduledWorkflows }, (_, index) =>
        workload.publish(
          `Scheduled ${index}`,
          chainOf(nodes.schedule('nightly', '0 0 1 1 *'), workload.sideEffect('tick')),
        ),
      ),
    );
    const schedules = new ScheduleDriver(pool, scheduled);
    const load = new SteadyLoad(
      () => cluster.gateways,
      workload.apiKeys.map((apiKey) => runSender(workflowId, apiKey)),
      { perSecond: runsPerSecond },
    );

    const faults: ClusterProofReport['faults'] = [];
    const startedAt = Date.now();
    const at = () => Math.round((Date.now() - startedAt) / 100) / 10;
    const until = (second: number) =>
      new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + second * 1000 - Date.now())));
    load.start();
    schedules.start();
    log(`runs flowing at ${runsPerSecond}/s through ${cluster.gateways.length} gateways`);

    await until(seconds / 3);
    const runner = cluster.names('runner')[1]!;
    const natsNode = cluster.nats.nodes[1]!;
    const faultAt = Date.now();
    await Promise.all([cluster.kill(runner), natsNode.kill()]);
    faults.push({ what: `SIGKILL ${runner}`, atSeconds: at() }, { what: 'SIGKILL nats-1', atSeconds: at() });
    log(`killed ${runner} and nats-1 at ${at()} s`);

    await until((2 * seconds) / 3);
    const repairAt = Date.now();
    await Promise.all([
      cluster
        .restart(runner)
        .then(() =>
          faults.push({ what: `restart ${runner}`, atSeconds: at(), readyAfterMs: Date.now() - repairAt }),
        ),
      natsNode
        .resume()
        .then(() =>
          faults.push({ what: 'restart nats-1', atSeconds: at(), readyAfterMs: Date.now() - repairAt }),
        ),
    ]);
    const repairedAt = Date.now();
    log(`${runner} and nats-1 back at ${at()} s`);

    await until(seconds);
    await Promise.all([load.stop(), schedules.stop()]);
    log(`${load.accepted.length} runs accepted; waiting for them to end`);

    const runIds = load.accepted.map((run) => run.id);
    const outcomes = await settledRuns(pool, runIds, 120_000);
    const expected = schedules.expectedKeys();
    const scheduledRuns = await waitFor(
      async () => {
        const { rows } = await pool.query<{ id: string; idempotency_key: string }>(
          `SELECT id, idempotency_key FROM runner.runs WHERE workflow_id = ANY($1) AND trigger = 'schedule'`,
          [scheduled],
        );
        return rows.length >= expected.size ? rows : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'every due schedule to fire' },
    ).catch(async () => {
      const { rows } = await pool.query<{ id: string; idempotency_key: string }>(
        `SELECT id, idempotency_key FROM runner.runs WHERE workflow_id = ANY($1) AND trigger = 'schedule'`,
        [scheduled],
      );
      return rows;
    });
    const firedKeys = scheduledRuns.map((run) => run.idempotency_key);
    log(`runs ended and ${firedKeys.length} scheduled runs fired; probing the rate limit`);

    const phaseOf = (run: RunOutcome) =>
      run.createdAt.getTime() < faultAt
        ? 'before'
        : run.createdAt.getTime() < repairedAt
          ? 'during'
          : 'after';
    const completion = { before: [] as number[], during: [] as number[], after: [] as number[] };
    for (const run of outcomes.values()) {
      if (run.status === 'complete' && run.finishedAt) {
        completion[phaseOf(run)].push(run.finishedAt.getTime() - run.createdAt.getTime());
      }
    }
    const called = workload.ledger.runIds();
    const complete = [...outcomes.values()].filter((run) => run.status === 'complete');

    const rateLimit = await proveSharedRateLimit(cluster, limit);
    return {
      runs: {
        accepted: load.accepted.length,
        abandoned: load.abandoned,
        retriedBeforeAccepted: load.accepted.filter((run) => run.retries > 0).length,
        lost: runIds.filter((id) => !outcomes.has(id)).length,
        notComplete: runIds.length - complete.length,
        doneStepsExecutedTwice: workload.ledger.doneStepsRepeated().length,
        actionRetriesAfterCrash: workload.ledger.repeatedKeys(),
        actionsMissing: complete.filter((run) => !called.has(run.id)).length,
        completionMs: {
          before: summary(completion.before),
          during: summary(completion.during),
          after: summary(completion.after),
        },
      },
      schedules: {
        dueTimes: expected.size,
        fired: firedKeys.filter((key) => expected.has(key)).length,
        missed: [...expected].filter((key) => !firedKeys.includes(key)).length,
        unexpected: firedKeys.length - firedKeys.filter((key) => expected.has(key)).length,
      },
      rateLimit,
      faults,
    };
  } finally {
    await pool.end();
    await workload.stop();
  }
}

/**
 * A key of its own sends half again its hourly limit, 20 at a time, alternately through every
 * gateway. Each gateway alone would let `limit` through; shared, they let through the limit and at
 * most what they admit between two exchanges with the shared count (200 ms).
 */
async function proveSharedRateLimit(
  cluster: LocalCluster,
  limit: number,
): Promise<ClusterProofReport['rateLimit']> {
  const { apiKey } = await adminCli<{ apiKey: string }>(
    ['org', 'create', '--name', 'Rate limit proof', '--plan', 'enterprise'],
    cluster.env,
  );
  const gateways = cluster.gateways;
  const sent = Math.ceil(limit * 1.5);
  let next = 0;
  const statuses: Record<string, number> = {};
  const status = (gateway: string) =>
    fetch(`${gateway}/api/v1/projects`, { headers: { authorization: `Bearer ${apiKey}` } }).then(
      async (response) => {
        await response.body?.cancel();
        return response.status;
      },
    );
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < sent) {
        const index = next++;
        const code = await status(gateways[index % gateways.length]!);
        statuses[code] = (statuses[code] ?? 0) + 1;
      }
    }),
  );
  // Once the last hits are shared, every gateway refuses the key.
  const refusing = await waitFor(
    async () => ((await Promise.all(gateways.map(status))).every((code) => code === 429) ? true : undefined),
    { timeoutMs: 5_000, intervalMs: 250, what: 'every gateway to refuse the key' },
  ).catch(() => false);
  return { limit, sent, allowed: statuses[200] ?? 0, statuses, bothGatewaysRefuseAfter: refusing };
}
