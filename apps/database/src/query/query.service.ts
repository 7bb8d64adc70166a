import { DomainException } from '#common';
import type { IdAndBody, Principal, QueryResponseDto, ServiceQueryRequestDto } from '#contracts';
import { RunCancellations } from '#nats';
import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { DatabasesService } from '../databases/databases.service.js';
import { StorageService } from '../databases/storage.service.js';
import { LOGGER, NATS_CONNECTION, QUERY_SETTINGS, type QuerySettings, SHARD } from '../database.tokens.js';
import type { BatchStatement, StorageBudget } from '../engine/batch-runner.js';
import { DatabaseEngine, DatabaseMovedError, MoveWaitTimeoutError } from '../engine/database-engine.js';
import { DatabaseFileMissingError, EngineStoppingError } from '../engine/engine.errors.js';
import { EngineExitedError } from '../engine/worker/engine-process.js';
import { ShardClient } from '../shards/shard.client.js';
import { BatchTurns } from './batch-turns.js';
import { seemsToWrite } from './write-hint.util.js';

/**
 * Sends the batch to the replica holding the database and answers that replica's JSON text of
 * `{results}`; each transport forwards on its own subject.
 */
export type ForwardBatch = (shard: number, deadline: number) => Promise<string>;

/** A batch that lands on a database that has just moved is forwarded again, at most this often. */
const MAX_HOPS = 2;
/** Room for the envelope and packet around the results in one NATS message. */
const REPLY_OVERHEAD_BYTES = 4 * 1024;
/** How much longer than the batch's deadline a forwarded batch's answer may take to come back. */
const FORWARD_MARGIN_MS = 10_000;

@Injectable()
export class QueryService {
  private readonly turns: BatchTurns;

  constructor(
    private readonly databases: DatabasesService,
    private readonly engine: DatabaseEngine,
    private readonly storage: StorageService,
    @Inject(QUERY_SETTINGS) private readonly settings: QuerySettings,
    @Inject(SHARD) private readonly shard: number,
    private readonly peers: ShardClient,
    private readonly cancellations: RunCancellations,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.turns = new BatchTurns(settings.batchesPerOrganization, settings.batchesWaitingPerOrganization);
  }

  /**
   * `DatabaseSubjects.query` (and its forwarded form, with the `deadline` of the replica that first
   * received it): the whole answer travels in one NATS message.
   */
  async runForService(
    principal: Principal,
    { id, body }: IdAndBody<ServiceQueryRequestDto>,
    deadline?: number,
  ): Promise<QueryResponseDto> {
    const maxPayload = this.nats.info?.max_payload ?? 1024 * 1024;
    const forward = async (shard: number, batchDeadline: number) =>
      JSON.stringify(
        await this.peers.request<QueryResponseDto>(
          shard,
          'query',
          { principal, data: { id, body }, deadline: batchDeadline },
          Math.max(0, batchDeadline - Date.now()) + FORWARD_MARGIN_MS,
        ),
      );
    const text = await this.run(principal, id, body, maxPayload - REPLY_OVERHEAD_BYTES, forward, deadline);
    return JSON.parse(text) as QueryResponseDto;
  }

  /**
   * Runs a batch on one of the caller's databases and answers the JSON text of `{results}`;
   * `replyLimitBytes` is what the caller's channel can carry back. A database another shard holds
   * goes to `forward`; `deadline` is the batch's, when it was first received by another replica.
   */
  async run(
    principal: Principal,
    id: string,
    body: { statements: BatchStatement[]; readOnly?: boolean; runId?: string } | undefined,
    replyLimitBytes: number,
    forward: ForwardBatch,
    deadline = Date.now() + this.settings.batchTimeoutMs,
  ): Promise<string> {
    if (!body || !Array.isArray(body.statements)) {
      throw DomainException.invalidRequest([{ path: 'statements', message: 'statements must be an array' }]);
    }
    for (let hop = 0; ; hop += 1) {
      const database = await this.databases.findOwned(principal, id);
      if (database.shard !== this.shard) return forward(database.shard, deadline);
      try {
        return await this.runHere(principal, database.id, body, replyLimitBytes, deadline);
      } catch (error) {
        // It moved while the batch waited: the row now names its new shard.
        if (!(error instanceof DatabaseMovedError)) throw error;
        if (hop >= MAX_HOPS) {
          throw new DomainException(
            'service_unavailable',
            'The database is moving between servers. Try again.',
          );
        }
      }
    }
  }

  /**
   * On this replica, in the organization's turn; a writing batch's new size is written on its row. A
   * batch of a run's step is stopped and rolled back when the run is cancelled (the replica holding
   * the database hears the cancel too, so a forwarded batch is stopped where it runs).
   */
  private runHere(
    principal: Principal,
    id: string,
    body: { statements: BatchStatement[]; readOnly?: boolean; runId?: string },
    replyLimitBytes: number,
    deadline: number,
  ): Promise<string> {
    return this.cancellations.during(body.runId, principal.organizationId, (signal) =>
      this.runInTurn(principal, id, body, replyLimitBytes, deadline, signal),
    );
  }

  private async runInTurn(
    principal: Principal,
    id: string,
    body: { statements: BatchStatement[]; readOnly?: boolean },
    replyLimitBytes: number,
    deadline: number,
    signal: AbortSignal,
  ): Promise<string> {
    const endTurn = await this.turns.take(principal.organizationId, deadline);
    // Asked at most once, and at once for a batch that looks like a write: catalog and Postgres answer
    // while the engine prepares the batch.
    let budget: Promise<StorageBudget> | undefined;
    const storageBudget = () => (budget ??= this.storage.budget(principal, id));
    if (seemsToWrite(body.statements)) void storageBudget().catch(() => undefined);
    try {
      const outcome = await this.engine.run(
        principal.organizationId,
        id,
        body.statements,
        {
          statementTimeoutMs: this.settings.statementTimeoutMs,
          deadline,
          resultLimitBytes: this.settings.resultLimitBytes,
          replyLimitBytes,
          onlyReads: body.readOnly === true,
          storageBudget,
        },
        signal,
      );
      if (outcome.storedBytes !== null) await this.storage.record(id, outcome.storedBytes);
      return outcome.body;
    } catch (error) {
      throw await this.failure(principal, id, error);
    } finally {
      endTurn();
    }
  }

  private async failure(principal: Principal, id: string, error: unknown): Promise<unknown> {
    if (error instanceof MoveWaitTimeoutError) {
      return new DomainException(
        'service_unavailable',
        'The database was being moved between servers for longer than the batch may wait. Nothing was applied; try again.',
      );
    }
    if (error instanceof EngineStoppingError) {
      return new DomainException('service_unavailable', 'The database service is restarting. Try again.');
    }
    if (error instanceof EngineExitedError) {
      this.logger.warn({ databaseId: id, err: error }, 'a batch ended with the engine worker');
      return new DomainException(
        'service_unavailable',
        'The database engine stopped while the batch ran (a query of this server may have needed more memory than it has) and was started again. A batch is applied completely or not at all: check which before you retry.',
      );
    }
    if (error instanceof DatabaseFileMissingError) {
      // Deleted since it was looked up: simply gone. Otherwise the volume does not hold it.
      if (!(await this.databases.exists(principal, id))) return DomainException.notFound('database', id);
      this.logger.error({ databaseId: id, path: error.path }, 'the file of an existing database is missing');
      return new DomainException('internal', 'The data of this database is not available on this server.');
    }
    return error;
  }
}
