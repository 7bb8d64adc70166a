import { randomUUID } from 'node:crypto';

import type pg from 'pg';

import { waitFor } from './wait.util.js';

export interface Accepted {
  /** What the service named it: a run id, or the delivery's id for a webhook delivery. */
  id: string;
  /** The client's own key for it (`Idempotency-Key`, the delivery's `webhook-id`). */
  key: string;
  kind: string;
  acceptedAt: number;
  /** Answers other than acceptance (a 503, a reset connection) before the one that accepted it. */
  retries: number;
}

/**
 * Sends one request for the item `key` through `gateway`; answers its id when the service accepted
 * it, or undefined for an answer to retry.
 */
export interface LoadSender {
  kind: string;
  send(gateway: string, key: string): Promise<string | undefined>;
}

/** Starts a run of `workflowId`, the client's key as its `Idempotency-Key` and in its input. */
export function runSender(workflowId: string, apiKey: string): LoadSender {
  return {
    kind: 'run',
    async send(gateway, key) {
      const response = await fetch(`${gateway}/api/v1/workflows/${workflowId}/runs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ input: JSON.stringify({ key }) }),
        signal: AbortSignal.timeout(15_000),
      });
      if (response.status !== 201) {
        await response.body?.cancel();
        return undefined;
      }
      return ((await response.json()) as { id: string }).id;
    },
  };
}

/**
 * Starts items at a steady rate, round robin over the senders and gateways, as a careful client
 * does: each item has a key of its own, and any answer but acceptance (a gateway that is down, a 503
 * while a service restarts) is retried with the same key, through the next gateway, until it is
 * accepted or `giveUpMs` passes. So an item is "accepted" exactly when an answer accepted it, and no
 * retry can start it twice.
 */
export class SteadyLoad {
  readonly accepted: Accepted[] = [];
  /** Items a client gave up on: never accepted within `giveUpMs`. */
  abandoned = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sent = 0;

  constructor(
    private readonly gateways: () => readonly string[],
    private readonly senders: readonly LoadSender[],
    private readonly options: { perSecond: number; giveUpMs?: number },
  ) {}

  start(): void {
    this.timer = setInterval(() => this.startOne(), 1000 / this.options.perSecond);
  }

  /** Stops starting items and waits for the ones under way to be accepted or given up. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }

  ofKind(kind: string): Accepted[] {
    return this.accepted.filter((item) => item.kind === kind);
  }

  private startOne(): void {
    const index = this.sent++;
    const sender = this.senders[index % this.senders.length]!;
    const attempt = this.sendUntilAccepted(index, sender).finally(() => this.inFlight.delete(attempt));
    this.inFlight.add(attempt);
  }

  private async sendUntilAccepted(index: number, sender: LoadSender): Promise<void> {
    const key = randomUUID();
    const deadline = Date.now() + (this.options.giveUpMs ?? 60_000);
    let retries = 0;
    for (let turn = 0; Date.now() < deadline; turn += 1) {
      const gateways = this.gateways();
      const id = await sender.send(gateways[(index + turn) % gateways.length]!, key).catch(() => undefined);
      if (id !== undefined) {
        this.accepted.push({ id, key, kind: sender.kind, acceptedAt: Date.now(), retries });
        return;
      }
      retries += 1;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    this.abandoned += 1;
  }
}

export interface RunOutcome {
  id: string;
  status: string;
  createdAt: Date;
  finishedAt: Date | null;
}

const FINAL = ['complete', 'errored', 'terminated'];

/** Reads the runs' rows, for a harness that checks them without going through the API it loads. */
export async function runOutcomes(
  pool: pg.Pool,
  runIds: readonly string[],
): Promise<Map<string, RunOutcome>> {
  const { rows } = await pool.query<{
    id: string;
    status: string;
    created_at: Date;
    finished_at: Date | null;
  }>('SELECT id, status, created_at, finished_at FROM runner.runs WHERE id = ANY($1::uuid[])', [runIds]);
  return new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, status: row.status, createdAt: row.created_at, finishedAt: row.finished_at },
    ]),
  );
}

/**
 * Waits until every run has ended (or `timeoutMs` passes) and answers their outcomes; a run not ended
 * by then is reported as it stands, for the harness to count as stuck.
 */
export async function settledRuns(
  pool: pg.Pool,
  runIds: readonly string[],
  timeoutMs: number,
): Promise<Map<string, RunOutcome>> {
  let latest = new Map<string, RunOutcome>();
  await waitFor(
    async () => {
      latest = await runOutcomes(pool, runIds);
      return runIds.every((id) => FINAL.includes(latest.get(id)?.status ?? '')) ? true : undefined;
    },
    { timeoutMs, intervalMs: 500, what: `${runIds.length} runs to end` },
  ).catch(() => undefined);
  return latest;
}

export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}
