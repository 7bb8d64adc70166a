import { DomainException } from '#common';
import type { Principal } from '#contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { DatabasesService } from '../databases/databases.service.js';
import { LOGGER, QUERY_SETTINGS, type QuerySettings } from '../database.tokens.js';
import { type BatchStatement, BatchRunner } from '../engine/batch-runner.js';
import {
  type DatabaseLease,
  DatabaseFileMissingError,
  EngineStoppingError,
  OpenDatabases,
} from '../engine/open-databases.js';

@Injectable()
export class QueryService {
  constructor(
    private readonly databases: DatabasesService,
    private readonly engine: OpenDatabases,
    @Inject(QUERY_SETTINGS) private readonly settings: QuerySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Runs a batch on one of the caller's databases and answers the JSON text of `{results}`;
   * `replyLimitBytes` is what the caller's channel can carry back.
   */
  async run(
    principal: Principal,
    id: string,
    body: { statements: BatchStatement[]; readOnly?: boolean } | undefined,
    replyLimitBytes: number,
  ): Promise<string> {
    const deadline = Date.now() + this.settings.batchTimeoutMs;
    if (!body || !Array.isArray(body.statements)) {
      throw DomainException.invalidRequest([{ path: 'statements', message: 'statements must be an array' }]);
    }
    const database = await this.databases.findOwned(principal, id);
    const lease = await this.leaseOf(principal, database.id);
    try {
      return await new BatchRunner(lease, body.statements, {
        statementTimeoutMs: this.settings.statementTimeoutMs,
        deadline,
        resultLimitBytes: this.settings.resultLimitBytes,
        replyLimitBytes,
        onlyReads: body.readOnly === true,
      }).run();
    } finally {
      lease.release();
    }
  }

  private async leaseOf(principal: Principal, id: string): Promise<DatabaseLease> {
    try {
      return await this.engine.lease(principal.organizationId, id);
    } catch (error) {
      if (error instanceof EngineStoppingError) {
        throw new DomainException('service_unavailable', 'The database service is restarting. Try again.');
      }
      if (error instanceof DatabaseFileMissingError) {
        // Deleted since it was looked up: simply gone. Otherwise the volume does not hold it.
        if (!(await this.databases.exists(principal, id))) throw DomainException.notFound('database', id);
        this.logger.error(
          { databaseId: id, path: error.path },
          'the file of an existing database is missing',
        );
        throw new DomainException('internal', 'The data of this database is not available on this server.');
      }
      throw error;
    }
  }
}
