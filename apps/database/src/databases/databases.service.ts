import { DomainException, type Page } from '#common';
import type {
  CreateDatabaseDto,
  DatabaseDto,
  DatabaseOverview,
  PageQueryDto,
  Principal,
  UpdateDatabaseDto,
} from '#contracts';
import { isId, mapPage } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { audit } from '../audit/database-audit.js';
import { LOGGER, RPC_TIMEOUT_MS, SHARD } from '../database.tokens.js';
import { DatabaseEngine } from '../engine/database-engine.js';
import { EngineStoppingError } from '../engine/engine.errors.js';
import { EngineExitedError } from '../engine/worker/engine-process.js';
import { leastLoaded } from '../shards/shard-assignment.util.js';
import { ShardClient, ShardUnreachableError } from '../shards/shard.client.js';
import { ShardRepository } from '../shards/shard.repository.js';
import { SHARD_LIVE_MS } from '../shards/shard-registry.service.js';
import type { DatabaseRecord } from './database.mapper.js';
import { DatabaseNameTakenError, DatabaseRepository } from './database.repository.js';
import { PlanClient } from './plan.client.js';

export function toDatabaseDto(database: DatabaseRecord): DatabaseDto {
  return {
    id: database.id,
    name: database.name,
    description: database.description,
    createdAt: database.createdAt.toISOString(),
    updatedAt: database.updatedAt.toISOString(),
  };
}

@Injectable()
export class DatabasesService {
  constructor(
    private readonly databases: DatabaseRepository,
    private readonly plans: PlanClient,
    private readonly engine: DatabaseEngine,
    private readonly shards: ShardRepository,
    private readonly peers: ShardClient,
    @Inject(SHARD) private readonly shard: number,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RPC_TIMEOUT_MS) private readonly rpcTimeoutMs: number,
  ) {}

  existing(principal: Principal, ids: string[]): Promise<string[]> {
    return this.databases.existing(principal.organizationId, ids);
  }

  async overview(principal: Principal): Promise<DatabaseOverview> {
    const [databases, storage] = await Promise.all([
      this.databases.count(principal.organizationId),
      this.databases.storage(principal.organizationId),
    ]);
    return { databases, storageBytes: storage.total, largestDatabaseBytes: storage.largest };
  }

  async list(principal: Principal, query: PageQueryDto): Promise<Page<DatabaseDto>> {
    return mapPage(await this.databases.list(principal.organizationId, query), toDatabaseDto);
  }

  /**
   * A new database goes to the live active shard holding the fewest; that replica makes the row and
   * the file. When it cannot be reached (the request reached no one, so nothing was made), this
   * replica takes the database instead.
   */
  async create(principal: Principal, input: CreateDatabaseDto): Promise<DatabaseDto> {
    const target = leastLoaded(await this.shards.loads(SHARD_LIVE_MS)) ?? this.shard;
    if (target !== this.shard) {
      try {
        return await this.peers.request<DatabaseDto>(
          target,
          'create',
          { principal, data: input },
          2 * this.rpcTimeoutMs,
        );
      } catch (error) {
        if (!(error instanceof ShardUnreachableError)) throw error;
        this.logger.warn({ shard: target }, 'the least loaded shard is not answering; creating here');
      }
    }
    return this.createHere(principal, input);
  }

  /**
   * The metadata row and the file are made together: the file is created inside the transaction
   * that inserts the row, and removed again if that transaction does not commit. The plan's limit is
   * asked for before that transaction: no lock is held while catalog answers.
   */
  async createHere(principal: Principal, input: CreateDatabaseDto): Promise<DatabaseDto> {
    const { organizationId } = principal;
    const limit = (await this.plans.limits(principal)).databases;
    let fileOf: string | undefined;
    try {
      const database = await this.nameChecked(input.name, () =>
        this.databases.transactionLockedFor(organizationId, async (trx) => {
          if ((await this.databases.count(organizationId, trx)) >= limit) {
            throw DomainException.planLimit('databases', limit);
          }
          const inserted = await this.databases.insert(
            { organizationId, name: input.name, description: input.description ?? '', shard: this.shard },
            trx,
          );
          fileOf = inserted.id;
          await audit.record(trx, principal, {
            action: 'database.created',
            resource: { type: 'database', id: inserted.id, name: inserted.name },
          });
          await this.engine.create(organizationId, inserted.id);
          return inserted;
        }),
      );
      return toDatabaseDto(database);
    } catch (error) {
      if (fileOf !== undefined) await this.removeFiles(organizationId, fileOf);
      if (error instanceof EngineStoppingError || error instanceof EngineExitedError) {
        throw new DomainException('service_unavailable', 'The database service is restarting. Try again.');
      }
      throw error;
    }
  }

  async get(principal: Principal, id: string): Promise<DatabaseDto> {
    return toDatabaseDto(await this.findOwned(principal, id));
  }

  async update(principal: Principal, id: string, input: UpdateDatabaseDto): Promise<DatabaseDto> {
    const database = await this.findOwned(principal, id);
    const changes = {
      ...(input.name === undefined ? {} : { name: input.name }),
      description: input.description ?? '',
    };
    if (changes.name === database.name && changes.description === database.description) {
      return toDatabaseDto(database);
    }
    const name = input.name ?? database.name;
    const updated = await this.nameChecked(name, () => this.databases.update(database, changes, principal));
    if (!updated) throw DomainException.notFound('database', id);
    return toDatabaseDto(updated);
  }

  /** Deleting removes the file, so the replica holding the database does it. */
  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    for (let hop = 0; hop < 3; hop += 1) {
      const database = await this.findOwned(principal, id);
      if (database.shard !== this.shard) {
        return this.peers.request<{ deleted: true }>(
          database.shard,
          'delete',
          { principal, data: { id } },
          2 * this.rpcTimeoutMs,
        );
      }
      if (await this.deleteHere(principal, id)) return { deleted: true };
      // It moved to another shard since it was read: ask again where it is.
    }
    throw new DomainException('service_unavailable', 'The database is moving between servers. Try again.');
  }

  /**
   * The row goes first, so no new batch finds the database; then running batches stop and the files
   * go. False when the row is not (or no longer) on this shard.
   */
  async deleteHere(principal: Principal, id: string): Promise<boolean> {
    if (!isId(id) || !(await this.databases.delete(principal.organizationId, id, this.shard, principal))) {
      if (!(await this.exists(principal, id))) throw DomainException.notFound('database', id);
      return false;
    }
    await this.removeFiles(principal.organizationId, id);
    return true;
  }

  /** The caller's database, or database_not_found: another organization's database is never found. */
  async findOwned(principal: Principal, id: string): Promise<DatabaseRecord> {
    const database = isId(id) ? await this.databases.find(principal.organizationId, id) : null;
    if (!database) throw DomainException.notFound('database', id);
    return database;
  }

  async exists(principal: Principal, id: string): Promise<boolean> {
    return (await this.databases.find(principal.organizationId, id)) !== null;
  }

  private async removeFiles(organizationId: string, id: string): Promise<void> {
    try {
      await this.engine.drop(organizationId, id);
    } catch (error) {
      // The row is gone, so the database is gone for its owner; the file is only disk to reclaim.
      this.logger.error({ err: error, databaseId: id }, 'removing the files of a deleted database failed');
    }
  }

  private async nameChecked<T>(name: string, save: () => Promise<T>): Promise<T> {
    try {
      return await save();
    } catch (error) {
      if (error instanceof DatabaseNameTakenError) {
        throw new DomainException(
          'database_name_taken',
          `A database named ${name} already exists in this organization.`,
        );
      }
      throw error;
    }
  }
}
