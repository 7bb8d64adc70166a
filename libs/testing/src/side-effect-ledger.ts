import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import pg from 'pg';

export interface SideEffect {
  runId: string;
  nodeId: string;
  attempt: number;
  at: number;
  /** The step's recorded status when the call arrived: `done` means a finished step ran again. */
  stepStatus: string;
}

/**
 * An app for actions to call that keeps a ledger of their side effects: each call's idempotency key
 * (`<runId>:<nodeId>:<attempt>`, DESIGN.md §3) and the step's status in the runner's table at the
 * moment the call arrived. A step is checkpointed `running` before its action is called, so a call
 * that finds its step already `done` is a finished step executed twice; a call that repeats a key
 * whose step was still `running` is the documented at-least-once retry of a step a crash cut short.
 */
export class SideEffectLedger {
  readonly effects: SideEffect[] = [];
  private readonly server: Server;
  private readonly pool: pg.Pool;

  private constructor(databaseUrl: string) {
    // The lookup must not hang on a Postgres that is being restarted: it records `unknown` instead.
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 4,
      connectionTimeoutMillis: 2_000,
      query_timeout: 2_000,
    });
    this.pool.on('error', () => undefined);
    this.server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        void this.record(String(request.headers['idempotency-key'] ?? '')).finally(() => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"ok":true}');
        });
      });
    });
  }

  static async start(databaseUrl: string): Promise<SideEffectLedger> {
    const ledger = new SideEffectLedger(databaseUrl);
    await new Promise<void>((resolve) => ledger.server.listen(0, '127.0.0.1', resolve));
    return ledger;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async record(key: string): Promise<void> {
    const match = /^([0-9a-f-]{36}):(.+):(\d+)$/.exec(key);
    if (!match) return;
    const [, runId, nodeId, attempt] = match as unknown as [string, string, string, string];
    const at = Date.now();
    let stepStatus = 'unknown';
    try {
      const { rows } = await this.pool.query<{ status: string }>(
        'SELECT status FROM runner.run_steps WHERE run_id = $1 AND node_id = $2',
        [runId, nodeId],
      );
      stepStatus = rows[0]?.status ?? 'absent';
    } catch {
      // Postgres is down: the call still counts, its step's status is unknown.
    }
    this.effects.push({ runId, nodeId, attempt: Number(attempt), at, stepStatus });
  }

  /** Calls (of `effects`, every one by default) that found their step already `done`. */
  doneStepsRepeated(effects: readonly SideEffect[] = this.effects): SideEffect[] {
    return effects.filter((effect) => effect.stepStatus === 'done');
  }

  /** How many calls repeated an idempotency key already seen among `effects` (at-least-once retries). */
  repeatedKeys(effects: readonly SideEffect[] = this.effects): number {
    const seen = new Set<string>();
    let repeats = 0;
    for (const { runId, nodeId, attempt } of effects) {
      const key = `${runId}:${nodeId}:${attempt}`;
      if (seen.has(key)) repeats += 1;
      seen.add(key);
    }
    return repeats;
  }

  /** The runs that called the action at least once. */
  runIds(): Set<string> {
    return new Set(this.effects.map((effect) => effect.runId));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.pool.end();
  }
}
