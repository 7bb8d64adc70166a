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

import { LOGGER } from '../database.tokens.js';
import { EngineStoppingError, OpenDatabases } from '../engine/open-databases.js';
import type { DatabaseEntity } from './database.entity.js';
import { DatabaseNameTakenError, DatabaseRepository } from './database.repository.js';
import { PlanClient } from './plan.client.js';

export function toDatabaseDto(database: DatabaseEntity): DatabaseDto {
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
    private readonly engine: OpenDatabases,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  existing(principal: Principal, ids: string[]): Promise<string[]> {
    return this.databases.existing(principal.organizationId, ids);
  }

  async overview(principal: Principal): Promise<DatabaseOverview> {
    return { databases: await this.databases.count(principal.organizationId) };
  }

  async list(principal: Principal, query: PageQueryDto): Promise<Page<DatabaseDto>> {
    return mapPage(await this.databases.list(principal.organizationId, query), toDatabaseDto);
  }

  /**
   * The metadata row and the file are made together: the file is created inside the transaction
   * that inserts the row, and removed again if that transaction does not commit. The plan's limit is
   * asked for before that transaction: no lock is held while catalog answers.
   */
  async create(principal: Principal, input: CreateDatabaseDto): Promise<DatabaseDto> {
    const { organizationId } = principal;
    const limit = await this.plans.databaseLimit(principal);
    let fileOf: string | undefined;
    try {
      const database = await this.nameChecked(input.name, () =>
        this.databases.transactionLockedFor(organizationId, async (manager) => {
          if ((await this.databases.count(organizationId, manager)) >= limit) {
            throw DomainException.planLimit('databases', limit);
          }
          const inserted = await this.databases.insert(
            { organizationId, name: input.name, description: input.description ?? '' },
            manager,
          );
          fileOf = inserted.id;
          await this.engine.create(organizationId, inserted.id);
          return inserted;
        }),
      );
      return toDatabaseDto(database);
    } catch (error) {
      if (fileOf !== undefined) await this.removeFiles(organizationId, fileOf);
      if (error instanceof EngineStoppingError) {
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
    return toDatabaseDto(await this.nameChecked(name, () => this.databases.update(database, changes)));
  }

  /** The row goes first, so no new batch finds the database; then running batches stop and the files go. */
  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    if (!isId(id) || !(await this.databases.delete(principal.organizationId, id))) {
      throw DomainException.notFound('database', id);
    }
    await this.removeFiles(principal.organizationId, id);
    return { deleted: true };
  }

  /** The caller's database, or database_not_found: another organization's database is never found. */
  async findOwned(principal: Principal, id: string): Promise<DatabaseEntity> {
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

  private async nameChecked(name: string, save: () => Promise<DatabaseEntity>): Promise<DatabaseEntity> {
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
