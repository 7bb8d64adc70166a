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
import { bindParams } from './sql-params.util.js';
import { isRead, refusal, textRefusal } from './statement-policy.js';

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

function engineMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Failed to extract statements: /, '');
}

function queryFailed(statementIndex: number, message: string): DomainException {
  return new DomainException('query_failed', message, { statementIndex });
}

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
 */
export class BatchRunner {
  private connection!: DuckDBConnection;
  /** By SQL text: a batch that repeats a statement with other params prepares it once. */
  private readonly prepared = new Map<string, DuckDBPreparedStatement>();
  private rowBytes = 0;
  private inTransaction = false;

  constructor(
    private readonly lease: DatabaseLease,
    private readonly statements: readonly BatchStatement[],
    private readonly limits: BatchLimits,
  ) {}

  async run(): Promise<string> {
    this.connection = await this.lease.connect();
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
        throw queryFailed(index, engineMessage(error));
      }
      if (!isRead(statement.statementType)) throw queryFailed(index, READ_ONLY_GRANT);
    }
    throw queryFailed(0, READ_ONLY_GRANT);
  }

  private async execute(readOnly: boolean): Promise<string> {
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
    try {
      this.checkNotInterrupted(0);
      await this.connection.run(readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN TRANSACTION');
      this.inTransaction = true;
      const results: string[] = [];
      for (let index = 0; index < this.statements.length; index += 1) {
        this.checkNotInterrupted(index);
        results.push(await this.runStatement(index));
      }
      const body = `{"results":[${results.join(',')}]}`;
      const bytes = Buffer.byteLength(body);
      if (bytes > this.limits.replyLimitBytes) {
        throw new DomainException(
          'result_too_large',
          `The answer to this batch is ${bytes} bytes, more than this channel carries (${this.limits.replyLimitBytes} bytes); the batch was rolled back. Return fewer rows.`,
          { bytesRead: bytes, limitBytes: this.limits.replyLimitBytes },
        );
      }
      await this.commit();
      return body;
    } catch (error) {
      await this.rollback();
      throw error;
    } finally {
      releaseWriteLock?.();
    }
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
      throw queryFailed(index, engineMessage(error));
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
      const message = engineMessage(error);
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
      throw queryFailed(index, engineMessage(error));
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
      for (const text of chunkRowSlices(chunk, converters)) {
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
   * statement ends.
   */
  private async withTimeout<T>(index: number, work: () => Promise<T>): Promise<T> {
    const statementMs = this.limits.statementTimeoutMs;
    const budget = Math.min(statementMs, this.limits.deadline - Date.now());
    if (budget <= 0) throw this.timedOut(index, 'batch');
    let expired: 'statement' | 'batch' | undefined;
    let repeat: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      expired = budget === statementMs ? 'statement' : 'batch';
      this.connection.interrupt();
      repeat = setInterval(() => this.connection.interrupt(), 100);
    }, budget);
    try {
      return await work();
    } catch (error) {
      if (expired) throw this.timedOut(index, expired);
      this.checkNotInterrupted(index);
      if (error instanceof DomainException) throw error;
      throw queryFailed(index, engineMessage(error));
    } finally {
      clearTimeout(timer);
      if (repeat) clearInterval(repeat);
    }
  }

  private timedOut(index: number, what: 'statement' | 'batch'): DomainException {
    const message =
      what === 'statement'
        ? `Statement ${index} ran for more than ${this.limits.statementTimeoutMs} ms and was stopped; the batch was rolled back.`
        : `The batch ran past its time limit at statement ${index} and was stopped; the batch was rolled back.`;
    return new DomainException('internal', message, { statementIndex: index });
  }

  private checkNotInterrupted(index: number): void {
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
      throw queryFailed(this.statements.length - 1, engineMessage(error));
    }
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
