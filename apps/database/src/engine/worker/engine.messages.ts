import type { ErrorCode, ErrorDetails } from '#common';

import type { BatchLimits, BatchOutcome, BatchStatement, StorageBudget } from '../batch-runner.js';
import type { EngineSettings } from '../open-databases.js';

/**
 * What the database service and its engine worker say to each other over the worker's IPC channel
 * (docs/databases.md, "The engine worker"). The service calls the engine; while a writing batch
 * runs, the engine calls back for the batch's storage budget; and the engine tells the service what
 * a database holds when it opens or closes one.
 */
export type EngineCall =
  | { op: 'create'; organizationId: string; databaseId: string }
  | {
      op: 'batch';
      /** Names the batch when the engine asks for its storage budget. */
      batchId: number;
      organizationId: string;
      databaseId: string;
      statements: BatchStatement[];
      limits: Omit<BatchLimits, 'storageBudget'>;
    }
  /**
   * Stop a batch: its run was cancelled. Its statement is interrupted, it rolls back, and it fails
   * with `message`. A batch that has ended (or is committing) is left as it is.
   */
  | { op: 'cancel'; batchId: number; message: string }
  /** Checkpoint and close it (a move): the service sends it no batch meanwhile. */
  | { op: 'close'; databaseId: string; drainMs: number }
  | { op: 'drop'; organizationId: string; databaseId: string }
  /** Refuse new batches, give running ones `graceMs`, then interrupt them. */
  | { op: 'drain'; graceMs: number }
  | { op: 'closeAll' };

export interface EngineResults {
  create: null;
  batch: BatchOutcome;
  cancel: null;
  close: null;
  drop: null;
  drain: null;
  closeAll: null;
}

export type ServiceCall = { op: 'storageBudget'; batchId: number };

export interface ServiceResults {
  storageBudget: StorageBudget;
}

export type EngineEvent =
  | { event: 'storage'; databaseId: string; bytes: number }
  /** A line for the service's log: the worker starts no logger of its own. */
  | { event: 'log'; level: 'warn' | 'error'; fields: Record<string, unknown>; message: string };

/** An error as it crosses the channel: a DomainException keeps its code and details. */
export interface WireError {
  name: string;
  message: string;
  code?: ErrorCode;
  details?: ErrorDetails;
  path?: string;
}

export type WireMessage =
  | { type: 'ready' }
  | { type: 'call'; id: number; call: EngineCall | ServiceCall }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  | { type: 'event'; event: EngineEvent };

/** What the service hands the worker when it starts it (as its one argument, JSON). */
export interface WorkerSettings extends EngineSettings {
  dataDir: string;
  /** The service's process id: the worker ends when its parent is no longer this one. */
  servicePid: number;
}
