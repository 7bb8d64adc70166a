import { DomainException } from '#common';
import { DatabaseSubjects, isSqlValue, type QueryResultDto, type SqlValue } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { RunnerConfig } from '../runner.config.js';
import { type NodeExecutor, type PreparedStep, type StepContext, StepFailure } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';
import { stepRequest } from './step-request.js';

/** `[{a: 1}]` from columns `[a]` and rows `[[1]]`. */
export function rowObjects(result: Pick<QueryResultDto, 'columns' | 'rows'>): Array<Record<string, unknown>> {
  return result.rows.map((row) =>
    Object.fromEntries(result.columns.map((column, index) => [column, row[index]])),
  );
}

/**
 * Runs one SQL statement on one of the organization's databases, through the database service, as
 * the principal that started the run. String params are templates; the SQL itself is not, so values
 * always travel as bound parameters.
 */
@Injectable()
@NodeExecutorProvider()
export class DatabaseExecutor implements NodeExecutor {
  readonly type = 'database';
  readonly pure = false;
  readonly textField = 'rows';

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: RunnerConfig,
  ) {}

  prepare(context: StepContext): PreparedStep {
    const { databaseId, sql, params } = context.properties as {
      databaseId?: unknown;
      sql?: unknown;
      params?: unknown;
    };
    if (typeof databaseId !== 'string' || databaseId === '') throw new StepFailure('databaseId is required.');
    if (typeof sql !== 'string' || sql.trim() === '') throw new StepFailure('sql is required.');
    if (params !== undefined && !Array.isArray(params)) throw new StepFailure('params must be a list.');
    const id = context.render(databaseId, 'databaseId');
    const bound = ((params ?? []) as unknown[]).map((param, index): SqlValue | boolean => {
      if (typeof param === 'string') return context.render(param, `params[${index}]`);
      if (typeof param === 'boolean' || isSqlValue(param)) return param;
      throw new StepFailure(`params[${index}] must be text, a number, a boolean, null or {blob}.`);
    });
    return {
      input: JSON.stringify({ databaseId: id, sql, params: bound }),
      run: async () => {
        let results: QueryResultDto[];
        try {
          ({ results } = await stepRequest(
            this.rpc,
            DatabaseSubjects.query,
            context,
            () => ({ id, body: { statements: [{ sql, params: bound }], runId: context.run.id } }),
            {
              timeoutMs: this.config.DATABASE_STEP_TIMEOUT_MS,
              patienceMs: this.config.STEP_UNAVAILABLE_WAIT_MS,
            },
          ));
        } catch (error) {
          if (error instanceof DomainException) throw new StepFailure(error.message);
          throw error;
        }
        const result = results[0];
        if (!result) throw new StepFailure('The database answered no result for the statement.');
        const rows = rowObjects(result);
        return {
          status: 'done',
          output: {
            rows: JSON.stringify(rows),
            rowCount: String(rows.length),
            rowsWritten: String(result.meta?.rowsWritten ?? 0),
          },
        };
      },
    };
  }
}
