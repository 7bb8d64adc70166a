import { DomainException } from '#common';
import type { SqlValue } from '#contracts';
import {
  type DuckDBConnection,
  type DuckDBDataChunk,
  DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  type DuckDBResult,
  ResultReturnType,
  StatementType,
} from '@duckdb/node-api';

import { LockTimeoutError } from './async-mutex.js';
import { cellConverterFor, chunkRowSlices } from './cell.util.js';
import type { DatabaseLease } from './open-databases.js';
import type { PathScrubber } from './path-scrubber.js';
import { bindParams } from './sql-params.util.js';
import { freesSpace, isRead, refusal, textRefusal } from './statement-policy.js';
import { diskBytes, storedBytes } from './storage-meter.js';

export interface BatchStatement {
  sql: string;
  /** Booleans come only from other services (a workflow's database step), never from the route. */
  params?: Array<SqlValue | boolean>;
}

export interface BatchLimits {
  /** A statement running longer is interrupted. */
  statementTimeoutMs: number;
  /** When the whole batch, waits included, must have ended (epoch ms). */
  deadline: number;
  /** Serialized rows the batch may return. */
  resultLimitBytes: number;
  /** Size of the whole answer the caller's channel carries. */
  replyLimitBytes: number;
  /** The caller may only read: a batch that is not all SELECTs fails (an agent's read-only grant). */
  onlyReads?: boolean;
  /**
   * How large the database may be when a writing batch commits, asked once the batch turns out to
   * write (a read never waits for it).
   */
  storageBudget: () => Promise<StorageBudget>;
}

/** Room under the plan's storage limits for one database (docs/databases.md, "Storage"). */
export interface StorageBudget {
  /** Bytes the database may hold (storage-meter.ts): the smaller of the two limits' room. */
  roomBytes: number;
  /** The plan's limit that sets the room, for the answer's `details.limit`. */
  limit: number;
  /** `database`: the limit of each database; `organization`: of all its databases together. */
  scope: 'database' | 'organization';
}

/** What the engine running the batch holds for all its batches. */
export interface EngineContext {
  scrubber: PathScrubber;
  /**
   * The most a write transaction can hold in memory before COMMIT: DuckDB's memory limit plus its
   * spill cap. While a database's room is larger than that past what it holds, the batch cannot pass
   * it and is not measured before COMMIT.
   */
  pendingBoundBytes: number;
}

export interface BatchOutcome {
  /** The JSON text of `{results}`. */
  body: string;
  /** What the database holds after a writing batch committed; null for a batch that only read. */
  storedBytes: number | null;
}

const READ_ONLY_GRANT = 'This database is granted read-only: only SELECT statements run.';

const DML = new Set<StatementType>([
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
  StatementType.MERGE_INTO,
]);

/** DuckDB's refusal when a read-only transaction meets a write (e.g. `SELECT nextval(...)`). */
const READ_ONLY_VIOLATION = /launched in read-only mode/;

/**
 * How often a writing statement's growth on disk is checked against the storage limit: what it can
 * write past the limit is what DuckDB writes in this long (two `stat`s a time, only while it writes).
 */
const STORAGE_WATCH_MS = 50;

function queryFailed(statementIndex: number, message: string): DomainException {
  return new DomainException('query_failed', message, { statementIndex });
}

function storageLimit(budget: StorageBudget, message: string): DomainException {
  return new DomainException('plan_limit_reached', message, {
    resource: 'storage',
    limit: budget.limit,
    scope: budget.scope,
  });
}

function limitText(budget: StorageBudget): string {
  return budget.scope === 'database'
    ? `${budget.limit} bytes of storage per database`
    : `${budget.limit} bytes of storage for all of an organization's databases together`;
}

/**
 * Why a statement was stopped from outside: its time, the batch's time, the storage limit, or a
 * cancel of the run the batch works for.
 */
type StopReason = 'statement' | 'batch' | 'storage' | 'cancel';

function resultJson(columns: string[], rowsJson: string, rowsRead: number, rowsWritten: number): string {
  return `{"columns":${JSON.stringify(columns)},"rows":[${rowsJson}],"meta":{"rowsRead":${rowsRead},"rowsWritten":${rowsWritten}}}`;
}

/**
 * Runs a batch on its own connection (DuckDB interrupts per connection) in one transaction, and
 * answers the JSON text of `{results}`, built while the rows stream in so a batch past the result
 * limit stops early.
 *
 * A batch whose statements are all plain SELECTs reads a snapshot beside other batches. Any other
 * batch takes the database's write lock before it begins, so writers never conflict; were a
 * "read-only" batch to write after all (a SELECT calling nextval), DuckDB refuses it in its
 * read-only transaction and the batch runs again as a writer.
 *
 * A writer is held to its storage budget: a database at its limit runs only batches that read or
 * delete; a statement whose writes grow the file past the room is interrupted; and before COMMIT what
 * the database would hold is measured, so a batch past the limit is rolled back whole.
 *
 * `signal` aborts when the run the batch works for is cancelled: the running statement is interrupted,
 * the batch rolls back and fails with the signal's reason. Once COMMIT has started it completes.
 */
export class BatchRunner {
  private connection!: DuckDBConnection;
  /** By SQL text: a batch that repeats a statement with other params prepares it once. */
  private readonly prepared = new Map<string, DuckDBPreparedStatement>();
  private rowBytes = 0;
  private inTransaction = false;
  private stopped: StopReason | undefined;
  private budget: StorageBudget | undefined;
  /** A statement is running: an interrupt now stops it. */
  private statementRunning = false;
  /** Repeats the interrupt until the running statement ends (withTimeout clears it). */
  private interrupting: NodeJS.Timeout | undefined;

  constructor(
    private readonly lease: DatabaseLease,
    private readonly statements: readonly BatchStatement[],
    private readonly limits: BatchLimits,
    private readonly engine: EngineContext,
    private readonly signal: AbortSignal = new AbortController().signal,
  ) {}

  async run(): Promise<BatchOutcome> {
    this.signal.throwIfAborted();
    this.connection = await this.lease.connect();
    const cancel = () => {
      this.stopped ??= 'cancel';
      if (this.statementRunning) this.keepInterrupting();
    };
    this.signal.addEventListener('abort', cancel);
    try {
      const readOnly = await this.isReadOnly();
      if (this.limits.onlyReads && !readOnly) await this.refuseNonRead();
      try {
        return await this.execute(readOnly);
      } catch (error) {
        if (readOnly && error instanceof DomainException && READ_ONLY_VIOLATION.test(error.message)) {
          if (this.limits.onlyReads) throw queryFailed(0, READ_ONLY_GRANT);
          return await this.execute(false);
        }
        throw error;
      }
    } finally {
      this.signal.removeEventListener('abort', cancel);
      this.lease.disconnect(this.connection);
    }
  }

  /**
   * Prepares statements in order while they are SELECTs. Any other type, or one that cannot be
   * prepared yet (it may need a table an earlier statement creates), makes the batch a writer; the
   * run inside the transaction then reports errors at the statement where they happen.
   */
  private async isReadOnly(): Promise<boolean> {
    for (let index = 0; index < this.statements.length; index += 1) {
      let statement: DuckDBPreparedStatement;
      try {
        statement = await this.prepare(index);
      } catch {
        return false;
      }
      if (!isRead(statement.statementType)) return false;
    }
    return true;
  }

  /** Fails at the first statement that is not a SELECT, or that cannot be prepared (with its error). */
  private async refuseNonRead(): Promise<never> {
    for (let index = 0; index < this.statements.length; index += 1) {
      let statement: DuckDBPreparedStatement;
      try {
        statement = await this.prepare(index);
      } catch (error) {
        throw queryFailed(index, this.engineMessage(error));
      }
      if (!isRead(statement.statementType)) throw queryFailed(index, READ_ONLY_GRANT);
    }
    throw queryFailed(0, READ_ONLY_GRANT);
  }

  private async execute(readOnly: boolean): Promise<BatchOutcome> {
    // Asked before the write lock is taken: the service may ask catalog, and no lock is held meanwhile.
    const budget = readOnly ? undefined : await this.storageBudget();
    let releaseWriteLock: (() => void) | undefined;
    if (!readOnly) {
      try {
        releaseWriteLock = await this.lease.writeLock.acquire(this.limits.deadline - Date.now());
      } catch (error) {
        if (!(error instanceof LockTimeoutError)) throw error;
        throw new DomainException(
          'service_unavailable',
          'The database is busy with other writes and the batch did not start in time. Try again.',
        );
      }
    }
    this.rowBytes = 0;
    let watch: (() => void) | undefined;
    try {
      this.checkNotInterrupted(0);
      const startBytes = this.lease.storedBytes;
      if (budget && startBytes >= budget.roomBytes) await this.refuseGrowth(budget, startBytes);
      const startDisk = budget ? await diskBytes(this.lease.path) : 0;
      await this.connection.run(readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN TRANSACTION');
      this.inTransaction = true;
      if (budget) watch = this.watchStorage(budget, startBytes, startDisk);
      const results: string[] = [];
      for (let index = 0; index < this.statements.length; index += 1) {
        this.checkNotInterrupted(index);
        results.push(await this.runStatement(index));
      }
      watch?.();
      const body = `{"results":[${results.join(',')}]}`;
      const bytes = Buffer.byteLength(body);
      if (bytes > this.limits.replyLimitBytes) {
        throw new DomainException(
          'result_too_large',
          `The answer to this batch is ${bytes} bytes, more than this channel carries (${this.limits.replyLimitBytes} bytes); the batch was rolled back. Return fewer rows.`,
          { bytesRead: bytes, limitBytes: this.limits.replyLimitBytes },
        );
      }
      if (budget) await this.checkStorage(budget, startBytes, startDisk);
      // The last statement may have ended just as its run was cancelled: nothing of it is kept.
      this.signal.throwIfAborted();
      await this.commit();
      if (!budget) return { body, storedBytes: null };
      this.lease.storedBytes = await this.storedAfterCommit(budget);
      return { body, storedBytes: this.lease.storedBytes };
    } catch (error) {
      watch?.();
      await this.rollback();
      throw error;
    } finally {
      releaseWriteLock?.();
    }
  }

  private async storageBudget(): Promise<StorageBudget> {
    try {
      this.budget = await this.limits.storageBudget();
      return this.budget;
    } catch (error) {
      if (error instanceof DomainException) throw error;
      throw new DomainException(
        'service_unavailable',
        "The plan's storage limit could not be read, so the batch did not run. Try again.",
      );
    }
  }

  /** A database at its limit runs only batches that read or make room. */
  private async refuseGrowth(budget: StorageBudget, heldBytes: number): Promise<void> {
    for (let index = 0; index < this.statements.length; index += 1) {
      let type: StatementType | undefined;
      try {
        type = (await this.prepare(index)).statementType;
      } catch {
        // Prepared only after earlier statements run (a table they make): it would write.
      }
      if (type === undefined || !freesSpace(type)) {
        throw storageLimit(
          budget,
          `This database holds ${heldBytes} bytes and the plan allows ${limitText(budget)}: until it holds less, only batches that read or delete (SELECT, DELETE, DROP) run. Statement ${index} would write.`,
        );
      }
    }
  }

  /**
   * Interrupts the running statement once the file and its log have grown past the room left: large
   * inserts are written into the file as they run, so one statement could otherwise fill the disk
   * before COMMIT is reached. Answers the function that stops watching.
   */
  private watchStorage(budget: StorageBudget, startBytes: number, startDisk: number): () => void {
    let watching = true;
    const timer = setInterval(() => {
      void diskBytes(this.lease.path).then((disk) => {
        // A size read before watching stopped must not interrupt the COMMIT that follows.
        if (!watching) return;
        if (this.stopped === undefined && startBytes + disk - startDisk <= budget.roomBytes) return;
        this.stopped ??= 'storage';
        // Repeated while the statement runs: an interrupt that lands before it starts is forgotten.
        if (this.stopped === 'storage') this.connection.interrupt();
      });
    }, STORAGE_WATCH_MS);
    return () => {
      watching = false;
      clearInterval(timer);
    };
  }

  /**
   * Before COMMIT: what the database holds with this batch's writes, those still in memory included.
   * A batch that does not grow it (a delete in a database over its limit) may commit. Measured only
   * when it could matter: what the file grew by and all a transaction can hold in memory still fit.
   */
  private async checkStorage(budget: StorageBudget, startBytes: number, startDisk: number): Promise<void> {
    const grown = (await diskBytes(this.lease.path)) - startDisk;
    if (startBytes + grown + this.engine.pendingBoundBytes <= budget.roomBytes) return;
    const bytes = await storedBytes(this.connection, this.lease.path, { pending: true });
    if (bytes > budget.roomBytes && bytes > startBytes) {
      throw storageLimit(
        budget,
        `This batch would leave the database holding ${bytes} bytes and the plan allows ${limitText(budget)}; the batch was rolled back. Delete data or upgrade the plan.`,
      );
    }
  }

  /**
   * What the database holds now that the batch committed. Deleted rows give their space back only at
   * a checkpoint, so a database still over its room is checkpointed at once: its owner, who just made
   * room, can write again.
   */
  private async storedAfterCommit(budget: StorageBudget): Promise<number> {
    const bytes = await storedBytes(this.connection, this.lease.path);
    if (bytes <= budget.roomBytes) return bytes;
    try {
      await this.connection.run('CHECKPOINT');
    } catch {
      // The batch has committed either way; the next checkpoint gives the space back.
      return bytes;
    }
    return storedBytes(this.connection, this.lease.path);
  }

  private async runStatement(index: number): Promise<string> {
    const statement = await this.prepare(index);
    const refused = refusal(statement.statementType);
    if (refused) throw queryFailed(index, refused);
    const params = this.statements[index].params ?? [];
    if (statement.parameterCount !== params.length) {
      throw queryFailed(
        index,
        `Binder Error: the statement has ${statement.parameterCount} placeholder(s) but ${params.length} param(s) were sent.`,
      );
    }
    try {
      statement.clearBindings();
      bindParams(statement, params);
    } catch (error) {
      throw queryFailed(index, this.engineMessage(error));
    }
    return this.withTimeout(index, async () => {
      // A SELECT streams, so a result past the size limit stops early; anything else answers a
      // count or a few returned rows, and one round trip to the engine is cheaper than two.
      const type = statement.statementType;
      const result = type === StatementType.SELECT ? await statement.stream() : await statement.run();
      return this.collect(index, type, result);
    });
  }

  private async prepare(index: number): Promise<DuckDBPreparedStatement> {
    const { sql } = this.statements[index];
    const cached = this.prepared.get(sql);
    if (cached) return cached;
    const refused = textRefusal(sql);
    if (refused) throw queryFailed(index, refused);
    let extracted;
    try {
      extracted = await this.connection.extractStatements(sql);
    } catch (error) {
      const message = this.engineMessage(error);
      // The binding has no message of its own for text that holds no statement at all.
      throw queryFailed(
        index,
        message === 'Error in native callback' ? 'Parser Error: no SQL statement in the text.' : message,
      );
    }
    if (extracted.count !== 1) {
      throw queryFailed(
        index,
        `Each statement holds one SQL statement; this one holds ${extracted.count}. Send them as separate statements.`,
      );
    }
    let statement: DuckDBPreparedStatement;
    try {
      statement = await extracted.prepare(0);
    } catch (error) {
      throw queryFailed(index, this.engineMessage(error));
    }
    this.prepared.set(sql, statement);
    return statement;
  }

  /** Reads the statement's rows, counting their serialized size against the batch's limit. */
  private async collect(index: number, type: StatementType, result: DuckDBResult): Promise<string> {
    switch (result.returnType) {
      case ResultReturnType.CHANGED_ROWS:
        return resultJson([], '', 0, await this.countOf(result));
      case ResultReturnType.NOTHING:
      case ResultReturnType.INVALID:
        // CREATE TABLE … AS reports the rows it wrote in a Count column.
        return resultJson(
          [],
          '',
          0,
          type === StatementType.CREATE && result.columnCount === 1 && result.columnName(0) === 'Count'
            ? await this.countOf(result)
            : 0,
        );
      case ResultReturnType.QUERY_RESULT:
        break;
    }
    const columns = result.columnNames();
    const converters = result.columnTypes().map(cellConverterFor);
    const parts: string[] = [];
    let rows = 0;
    this.rowBytes += 2;
    for (let chunkIndex = 0; ; chunkIndex += 1) {
      const chunk = await this.chunkOf(result, chunkIndex);
      if (!chunk || chunk.rowCount === 0) break;
      for (const slice of chunkRowSlices(chunk, converters)) {
        const text = this.engine.scrubber.rows(slice);
        this.rowBytes += Buffer.byteLength(text) + (parts.length > 0 ? 1 : 0);
        parts.push(text);
        if (this.rowBytes > this.limits.resultLimitBytes) {
          throw new DomainException(
            'result_too_large',
            `The rows of this batch passed ${this.limits.resultLimitBytes} bytes serialized at statement ${index}; the batch was rolled back. Select fewer rows or columns.`,
            { bytesRead: this.rowBytes, limitBytes: this.limits.resultLimitBytes, statementIndex: index },
          );
        }
      }
      rows += chunk.rowCount;
    }
    return resultJson(columns, parts.join(','), rows, DML.has(type) ? rows : 0);
  }

  /** The next chunk: already in memory for a materialized result, fetched for a streaming one. */
  private async chunkOf(result: DuckDBResult, index: number): Promise<DuckDBDataChunk | null> {
    if (result instanceof DuckDBMaterializedResult) {
      return index < result.chunkCount ? result.getChunk(index) : null;
    }
    return result.fetchChunk();
  }

  private async countOf(result: DuckDBResult): Promise<number> {
    const chunk = await this.chunkOf(result, 0);
    if (!chunk || chunk.rowCount === 0 || chunk.columnCount === 0) return 0;
    const value = chunk.getColumnValues(0)[0];
    return typeof value === 'bigint' || typeof value === 'number' ? Number(value) : 0;
  }

  /**
   * Interrupts a statement that runs past its time (or past the batch's deadline). An interrupt that
   * reaches the engine before it starts the statement would be forgotten, so it repeats until the
   * statement ends. The storage watch interrupts the same way (watchStorage).
   */
  private async withTimeout<T>(index: number, work: () => Promise<T>): Promise<T> {
    const statementMs = this.limits.statementTimeoutMs;
    const budget = Math.min(statementMs, this.limits.deadline - Date.now());
    if (budget <= 0) throw this.timedOut(index, 'batch');
    // A cancel that came while the statement was prepared: it does not start.
    this.signal.throwIfAborted();
    const timer = setTimeout(() => {
      this.stopped ??= budget === statementMs ? 'statement' : 'batch';
      this.keepInterrupting();
    }, budget);
    this.statementRunning = true;
    try {
      return await work();
    } catch (error) {
      switch (this.stopped) {
        case 'cancel':
          throw this.signal.reason;
        case 'statement':
        case 'batch':
          throw this.timedOut(index, this.stopped);
        case 'storage':
          // Only the storage watch stops a statement for storage, and it runs with a budget.
          if (this.budget) {
            throw storageLimit(
              this.budget,
              `Statement ${index} wrote past the plan's storage limit (${limitText(this.budget)}) and was stopped; the batch was rolled back. Delete data or upgrade the plan.`,
            );
          }
          break;
        case undefined:
          break;
      }
      this.checkNotInterrupted(index);
      if (error instanceof DomainException) throw error;
      throw queryFailed(index, this.engineMessage(error));
    } finally {
      this.statementRunning = false;
      clearTimeout(timer);
      clearInterval(this.interrupting);
      this.interrupting = undefined;
    }
  }

  /**
   * Interrupts the running statement, and again every 100 ms until it ends: an interrupt that reaches
   * the engine before it starts the statement would be forgotten.
   */
  private keepInterrupting(): void {
    this.connection.interrupt();
    this.interrupting ??= setInterval(() => this.connection.interrupt(), 100);
  }

  private timedOut(index: number, what: 'statement' | 'batch'): DomainException {
    const message =
      what === 'statement'
        ? `Statement ${index} ran for more than ${this.limits.statementTimeoutMs} ms and was stopped; the batch was rolled back.`
        : `The batch ran past its time limit at statement ${index} and was stopped; the batch was rolled back.`;
    return new DomainException('internal', message, { statementIndex: index });
  }

  private checkNotInterrupted(index: number): void {
    this.signal.throwIfAborted();
    switch (this.lease.interruptReason()) {
      case 'dropped':
        throw new DomainException('database_not_found', 'The database was deleted while the batch ran.');
      case 'stopping':
        throw new DomainException(
          'service_unavailable',
          `The database service restarted while statement ${index} ran; the batch was rolled back. Try again.`,
        );
      case null:
        return;
    }
  }

  private async commit(): Promise<void> {
    try {
      await this.connection.run('COMMIT');
      this.inTransaction = false;
    } catch (error) {
      throw queryFailed(this.statements.length - 1, this.engineMessage(error));
    }
  }

  /** The engine's message, without the server's paths. */
  private engineMessage(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    return this.engine.scrubber.message(message.replace(/^Failed to extract statements: /, ''));
  }

  private async rollback(): Promise<void> {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    try {
      await this.connection.run('ROLLBACK');
    } catch {
      // A transaction the engine already ended (a failed COMMIT) has nothing left to roll back.
    }
  }
}
