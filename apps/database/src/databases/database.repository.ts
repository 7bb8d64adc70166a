import type { Page } from '#common';
import { isId, newId, paginate, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, Repository } from 'typeorm';

import { DatabaseEntity } from './database.entity.js';

export type NewDatabase = Pick<DatabaseEntity, 'organizationId' | 'name' | 'description' | 'shard'>;

/** Where a database's file is, for the replicas and their moves: not scoped by organization. */
export interface Placement {
  id: string;
  organizationId: string;
  shard: number;
  moveId: string | null;
}
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
    return this.saveUnique(repo, repo.create({ id: newId(), moveId: null, ...database }));
  }

  async placements(ids: string[]): Promise<Placement[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    return this.dataSource.query(
      `SELECT id, organization_id AS "organizationId", shard, move_id AS "moveId"
         FROM "database".databases WHERE id = ANY($1::uuid[])`,
      [wanted],
    );
  }

  async placement(id: string): Promise<Placement | null> {
    return (await this.placements([id]))[0] ?? null;
  }

  /** The databases a shard holds, oldest first. */
  async onShard(shard: number): Promise<Placement[]> {
    return this.dataSource.query(
      `SELECT id, organization_id AS "organizationId", shard, move_id AS "moveId"
         FROM "database".databases WHERE shard = $1 ORDER BY created_at, id`,
      [shard],
    );
  }

  /**
   * Marks the database as moving away from `shard`; false when it is not there or already moving.
   * Every step of a move is one such compare-and-set on the row, never a lock held while NATS carries
   * the file, so whichever side dies, the row alone says who holds the database.
   */
  beginMove(id: string, shard: number, moveId: string): Promise<boolean> {
    return this.changed(
      `UPDATE "database".databases SET move_id = $3 WHERE id = $1 AND shard = $2 AND move_id IS NULL`,
      [id, shard, moveId],
    );
  }

  /** The commit point of a move: only while the move is still the one the source began. */
  commitMove(id: string, from: number, to: number, moveId: string): Promise<boolean> {
    return this.changed(
      `UPDATE "database".databases SET shard = $3, move_id = NULL
        WHERE id = $1 AND shard = $2 AND move_id = $4`,
      [id, from, to, moveId],
    );
  }

  /** Gives up a move; once this succeeds the target can no longer commit it. */
  abortMove(id: string, from: number, moveId: string): Promise<boolean> {
    return this.changed(
      `UPDATE "database".databases SET move_id = NULL WHERE id = $1 AND shard = $2 AND move_id = $3`,
      [id, from, moveId],
    );
  }

  private async changed(sql: string, params: unknown[]): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(sql, params)) as [unknown, number];
    return affected > 0;
  }

  /** What the database holds now (docs/databases.md, "Storage"); not scoped: its shard measured it. */
  async recordStorage(id: string, bytes: number): Promise<void> {
    await this.dataSource.query(`UPDATE "database".databases SET storage_bytes = $2 WHERE id = $1`, [
      id,
      Math.max(0, Math.round(bytes)),
    ]);
  }

  /** Bytes the organization's databases other than `id` hold, as last measured. */
  async storageOfOthers(organizationId: string, id: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT coalesce(sum(storage_bytes), 0)::text AS bytes FROM "database".databases
        WHERE organization_id = $1 AND id <> $2`,
      [organizationId, id],
    )) as Array<{ bytes: string }>;
    return Number(row?.bytes ?? 0);
  }

  /** Bytes the organization's databases hold together, and its largest one. */
  async storage(organizationId: string): Promise<{ total: number; largest: number }> {
    const [row] = (await this.dataSource.query(
      `SELECT coalesce(sum(storage_bytes), 0)::text AS total, coalesce(max(storage_bytes), 0)::text AS largest
         FROM "database".databases WHERE organization_id = $1`,
      [organizationId],
    )) as Array<{ total: string; largest: string }>;
    return { total: Number(row?.total ?? 0), largest: Number(row?.largest ?? 0) };
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

  /** Deletes the row only while `shard` holds the database, so no other replica's file is orphaned. */
  async delete(organizationId: string, id: string, shard: number): Promise<boolean> {
    const result = await this.repo().delete({ organizationId, id, shard });
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
