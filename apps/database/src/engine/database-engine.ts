import { setTimeout as sleep } from 'node:timers/promises';

import { inSpan, recordContent, SERVICE_ATTRIBUTE, SpanKind } from '#common';
import type { Logger } from 'pino';

import { batchFailed, batchSucceeded } from './duckdb.metrics.js';
import type { BatchLimits, BatchOutcome, BatchStatement, StorageBudget } from './batch-runner.js';
import { EngineStoppingError } from './engine.errors.js';
import type { ServiceCall, WorkerSettings } from './worker/engine.messages.js';
import { EngineExitedError, EngineProcess } from './worker/engine-process.js';

/** The database moved to another shard while the batch waited: send it to the new owner. */
export class DatabaseMovedError extends Error {
  constructor(readonly databaseId: string) {
    super(`Database ${databaseId} moved to another shard`);
    this.name = 'DatabaseMovedError';
  }
}

/** A move kept the database closed past the batch's deadline. */
export class MoveWaitTimeoutError extends Error {
  constructor(readonly databaseId: string) {
    super(`Database ${databaseId} was still moving at the batch's deadline`);
    this.name = 'MoveWaitTimeoutError';
  }
}

export type MoveOutcome = 'moved' | 'stayed';

/** How long a call that is not a batch waits for a worker being started again. */
const RESTART_WAIT_MS = 10_000;

/** A database closed for a move: new batches wait until `finish` says where it ended up. */
export interface MoveGate {
  finish(outcome: MoveOutcome): void;
}

/** How the move ended, or MoveWaitTimeoutError at `deadline`. */
async function settledBy(
  move: Promise<MoveOutcome>,
  deadline: number,
  databaseId: string,
): Promise<MoveOutcome> {
  if (!Number.isFinite(deadline)) return move;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new MoveWaitTimeoutError(databaseId)),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([move, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface DatabaseEngineOptions {
  settings: Omit<WorkerSettings, 'servicePid'>;
  /** The engine worker's data-size limit (`DUCKDB_WORKER_MEMORY_LIMIT`). */
  dataLimitBytes: number;
  logger: Logger;
  /** What a database holds, told when the worker opens or closes it. */
  onStorage: (databaseId: string, bytes: number) => void;
}

/**
 * The service's side of the DuckDB engine: the engine itself runs in a worker process under a
 * memory limit (engine.worker.ts), and this keeps what must outlive a worker that dies: which
 * databases are closed for a move (batches wait for the move here, and a restarted worker is never
 * sent one), the batches running on each database (a move waits for them), and whether the service
 * is stopping.
 */
export class DatabaseEngine {
  private readonly worker: EngineProcess;
  /** Databases closed for a move, with how their move ended once it has. */
  private readonly moving = new Map<string, Promise<MoveOutcome>>();
  private readonly running = new Map<string, number>();
  /** Each running batch's storage budget, which the worker asks for once the batch writes. */
  private readonly budgets = new Map<number, () => Promise<StorageBudget>>();
  private nextBatchId = 1;
  private stopping = false;

  constructor(options: DatabaseEngineOptions) {
    this.worker = new EngineProcess({
      settings: options.settings,
      dataLimitBytes: options.dataLimitBytes,
      logger: options.logger,
      serve: (call) => this.serve(call),
      onEvent: (event) => {
        switch (event.event) {
          case 'storage':
            return options.onStorage(event.databaseId, event.bytes);
          case 'log':
            return options.logger[event.level]({ ...event.fields, engine: 'worker' }, event.message);
        }
      },
    });
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  /**
   * Makes the empty file of a new database (and keeps it open: it is usually queried next). Its
   * caller holds a transaction, so a worker being restarted is waited for only briefly.
   */
  create(organizationId: string, databaseId: string): Promise<null> {
    if (this.stopping) return Promise.reject(new EngineStoppingError());
    return this.worker.call({ op: 'create', organizationId, databaseId }, Date.now() + RESTART_WAIT_MS);
  }

  /**
   * Runs a batch. While the database is moving, waits (until the batch's deadline) for the move to
   * end: it then runs here, or throws DatabaseMovedError for the caller to forward. When `signal`
   * aborts (the batch's run was cancelled), the worker interrupts the batch and it rolls back.
   */
  async run(
    organizationId: string,
    databaseId: string,
    statements: BatchStatement[],
    { storageBudget, ...limits }: BatchLimits,
    signal?: AbortSignal,
  ): Promise<BatchOutcome> {
    for (;;) {
      if (this.stopping) throw new EngineStoppingError();
      const move = this.moving.get(databaseId);
      if (!move) break;
      if ((await settledBy(move, limits.deadline, databaseId)) === 'moved') {
        throw new DatabaseMovedError(databaseId);
      }
    }
    signal?.throwIfAborted();
    // Counted before anything is awaited, so a move starting now waits for this batch.
    const batchId = this.nextBatchId++;
    this.budgets.set(batchId, storageBudget);
    this.running.set(databaseId, (this.running.get(databaseId) ?? 0) + 1);
    const cancel = () => {
      const message = signal?.reason instanceof Error ? signal.reason.message : 'The run was cancelled.';
      // A worker that is gone has nothing of the batch left to stop.
      this.worker.call({ op: 'cancel', batchId, message }, Date.now()).catch(() => undefined);
    };
    signal?.addEventListener('abort', cancel);
    const began = performance.now();
    try {
      // The batch's span (docs/tracing.md): its statement count, and its SQL only when an operator
      // turns content on, since SQL can hold what the rows hold.
      const outcome = await inSpan(
        'sql batch',
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [SERVICE_ATTRIBUTE]: 'database',
            'db.system.name': 'duckdb',
            'db.namespace': databaseId,
            'db.operation.batch.size': statements.length,
            ...(recordContent()
              ? { 'db.query.text': statements.map((statement) => statement.sql).join(';\n') }
              : {}),
          },
        },
        () =>
          this.worker.call(
            { op: 'batch', batchId, organizationId, databaseId, statements, limits },
            limits.deadline,
          ),
      );
      batchSucceeded(began, outcome.body);
      return outcome;
    } catch (error) {
      batchFailed(began, error);
      throw error;
    } finally {
      signal?.removeEventListener('abort', cancel);
      this.budgets.delete(batchId);
      const left = (this.running.get(databaseId) ?? 1) - 1;
      if (left > 0) this.running.set(databaseId, left);
      else this.running.delete(databaseId);
    }
  }

  /**
   * First step of moving a database away: new batches wait from now on, running ones get `drainMs`
   * to finish, then the worker checkpoints and closes the database so its file is complete on its
   * own. If batches are still running then, the move is given up (they are not interrupted).
   */
  async closeForMove(databaseId: string, drainMs: number): Promise<MoveGate> {
    if (this.stopping) throw new EngineStoppingError();
    if (this.moving.has(databaseId)) throw new Error(`Database ${databaseId} is already moving`);
    let settle: (result: MoveOutcome) => void = () => undefined;
    const outcome = new Promise<MoveOutcome>((resolve) => {
      settle = resolve;
    });
    this.moving.set(databaseId, outcome);
    const gate: MoveGate = {
      finish: (result) => {
        if (this.moving.get(databaseId) === outcome) this.moving.delete(databaseId);
        settle(result);
      },
    };
    try {
      const deadline = Date.now() + drainMs;
      while (this.running.has(databaseId) && Date.now() < deadline) await sleep(20);
      if (this.running.has(databaseId)) {
        throw new Error(`Batches on database ${databaseId} did not finish in time`);
      }
      await this.worker.call({ op: 'close', databaseId, drainMs: Math.max(0, deadline - Date.now()) });
    } catch (error) {
      gate.finish('stayed');
      throw error;
    }
    return gate;
  }

  /** Interrupts the database's running statements, closes it and removes its files. */
  async drop(organizationId: string, databaseId: string): Promise<void> {
    await this.worker.call({ op: 'drop', organizationId, databaseId }, Date.now() + RESTART_WAIT_MS);
  }

  /**
   * First half of a shutdown: refuses new batches and gives running ones `graceMs` to end, then
   * interrupts them (they roll back).
   */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    try {
      await this.worker.call({ op: 'drain', graceMs }, Date.now());
    } catch (error) {
      // A worker that is not running has no batch left to drain.
      if (!(error instanceof EngineExitedError)) throw error;
    }
  }

  /**
   * Second half: the worker checkpoints and closes every database, so the next start replays no log,
   * and exits.
   */
  async closeAll(): Promise<void> {
    this.stopping = true;
    try {
      await this.worker.call({ op: 'closeAll' }, Date.now());
    } catch (error) {
      if (!(error instanceof EngineExitedError)) throw error;
    } finally {
      await this.worker.stop();
    }
  }

  private async serve(call: ServiceCall): Promise<unknown> {
    switch (call.op) {
      case 'storageBudget': {
        const budget = this.budgets.get(call.batchId);
        if (!budget) throw new Error(`No batch ${call.batchId} is running`);
        return budget();
      }
    }
  }
}
