import { randomUUID } from 'node:crypto';

import type pg from 'pg';

import { waitFor } from './wait.util.js';

export interface AcceptedRun {
  runId: string;
  workflowId: string;
  acceptedAt: number;
  /** Answers other than 201 (503, a reset connection) before the one that accepted it. */
  retries: number;
}

export interface LoadTarget {
  workflowId: string;
  apiKey: string;
  input?: string;
}

/**
 * Starts runs at a steady rate, round robin over the gateways and targets, as a careful client does:
 * each run has an `Idempotency-Key` of its own, and any answer but 201 (a gateway that is down, a 503
 * while a service restarts) is retried with the same key until it is accepted or `giveUpMs` passes.
 * So a run is "accepted" exactly when a 201 named it, and no retry can start a second run.
 */
export class RunLoad {
  readonly accepted: AcceptedRun[] = [];
  /** Runs a client gave up on: never answered 201 within `giveUpMs`. */
  abandoned = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sent = 0;

  constructor(
    private readonly gateways: () => readonly string[],
    private readonly targets: readonly LoadTarget[],
    private readonly options: { runsPerSecond: number; giveUpMs?: number },
  ) {}

  start(): void {
    this.timer = setInterval(() => this.startOne(), 1000 / this.options.runsPerSecond);
  }

  /** Stops starting runs and waits for the ones being started to be accepted or given up. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }

  private startOne(): void {
    const index = this.sent++;
    const target = this.targets[index % this.targets.length]!;
    const attempt = this.postUntilAccepted(index, target).finally(() => this.inFlight.delete(attempt));
    this.inFlight.add(attempt);
  }

  private async postUntilAccepted(index: number, target: LoadTarget): Promise<void> {
    const key = randomUUID();
    const deadline = Date.now() + (this.options.giveUpMs ?? 60_000);
    let retries = 0;
    for (let turn = 0; Date.now() < deadline; turn += 1) {
      const gateways = this.gateways();
      const gateway = gateways[(index + turn) % gateways.length]!;
      const response = await fetch(`${gateway}/api/v1/workflows/${target.workflowId}/runs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${target.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ input: target.input ?? `run ${index}` }),
        signal: AbortSignal.timeout(15_000),
      }).catch(() => undefined);
      if (response?.status === 201) {
        const body = (await response.json()) as { id: string };
        this.accepted.push({
          runId: body.id,
          workflowId: target.workflowId,
          acceptedAt: Date.now(),
          retries,
        });
        return;
      }
      await response?.body?.cancel();
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
