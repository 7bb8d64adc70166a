import type { Page } from '#common';
import { isId, newId, paginate, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, Repository } from 'typeorm';

import { DatabaseEntity } from './database.entity.js';

export type NewDatabase = Pick<DatabaseEntity, 'organizationId' | 'name' | 'description'>;
export type DatabaseChanges = Partial<Pick<DatabaseEntity, 'name' | 'description'>>;

const UNIQUE_VIOLATION = '23505';

export class DatabaseNameTakenError extends Error {}

@Injectable()
export class DatabaseRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(DatabaseEntity);
  }

  /** Serializes database creation per organization so the plan limit cannot be overrun by a race. */
  async transactionLockedFor<T>(
    organizationId: string,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`databases:${organizationId}`]);
      return work(manager);
    });
  }

  count(organizationId: string, manager?: EntityManager): Promise<number> {
    return this.repo(manager).countBy({ organizationId });
  }

  insert(database: NewDatabase, manager?: EntityManager): Promise<DatabaseEntity> {
    const repo = this.repo(manager);
    return this.saveUnique(repo, repo.create({ id: newId(), ...database }));
  }

  /** The ids among `ids` of the organization's databases. */
  async existing(organizationId: string, ids: string[]): Promise<string[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM "database".databases WHERE organization_id = $1 AND id = ANY($2::uuid[])`,
      [organizationId, wanted],
    );
    return rows.map((row) => row.id);
  }

  find(organizationId: string, id: string): Promise<DatabaseEntity | null> {
    return this.repo().findOneBy({ organizationId, id });
  }

  list(organizationId: string, page: PageRequest): Promise<Page<DatabaseEntity>> {
    const query = this.repo()
      .createQueryBuilder('database')
      .where('database.organization_id = :organizationId', { organizationId });
    return paginate(query, page);
  }

  update(database: DatabaseEntity, changes: DatabaseChanges): Promise<DatabaseEntity> {
    return this.saveUnique(this.repo(), Object.assign(database, changes));
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.repo().delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  private async saveUnique(
    repo: Repository<DatabaseEntity>,
    database: DatabaseEntity,
  ): Promise<DatabaseEntity> {
    try {
      return await repo.save(database);
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) {
        throw new DatabaseNameTakenError(database.name);
      }
      throw error;
    }
  }
}
