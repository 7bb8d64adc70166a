import type { Page } from '#common';
import {
  type AuditCaller,
  InjectKysely,
  isId,
  keysetPage,
  mapPage,
  newId,
  type PageRequest,
} from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/database-audit.js';
import type { DB } from '../database.tables.js';

import {
  type DatabaseChanges,
  type DatabaseRecord,
  type NewDatabase,
  type Placement,
  PLACEMENT_COLUMNS,
  toDatabaseInsert,
  toDatabaseUpdate,
  toDatabaseRecord,
  toPlacement,
} from './database.mapper.js';

const UNIQUE_VIOLATION = '23505';

export class DatabaseNameTakenError extends Error {}

@Injectable()
export class DatabaseRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Serializes database creation per organization so the plan limit cannot be overrun by a race. */
  transactionLockedFor<T>(organizationId: string, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .selectNoFrom((eb) =>
          eb
            .fn('pg_advisory_xact_lock', [eb.fn('hashtext', [eb.val(`databases:${organizationId}`)])])
            .as('locked'),
        )
        .execute();
      return work(trx);
    });
  }

  async count(organizationId: string, db: Kysely<DB> = this.db): Promise<number> {
    const row = await db
      .selectFrom('database.databases')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return row.count;
  }

  insert(database: NewDatabase, db: Kysely<DB> = this.db): Promise<DatabaseRecord> {
    return nameUnique(database.name, async () =>
      toDatabaseRecord(
        await db
          .insertInto('database.databases')
          .values(toDatabaseInsert(newId(), database))
          .returningAll()
          .executeTakeFirstOrThrow(),
      ),
    );
  }

  async placements(ids: string[]): Promise<Placement[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows = await this.db
      .selectFrom('database.databases')
      .select(PLACEMENT_COLUMNS)
      .where((eb) => eb('id', '=', eb.fn.any(sql<string[]>`${wanted}::uuid[]`)))
      .execute();
    return rows.map(toPlacement);
  }

  async placement(id: string): Promise<Placement | null> {
    return (await this.placements([id]))[0] ?? null;
  }

  /** The databases a shard holds, oldest first. */
  async onShard(shard: number): Promise<Placement[]> {
    const rows = await this.db
      .selectFrom('database.databases')
      .select(PLACEMENT_COLUMNS)
      .where('shard', '=', shard)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toPlacement);
  }

  /**
   * Marks the database as moving away from `shard`; false when it is not there or already moving.
   * Every step of a move is one such compare-and-set on the row, never a lock held while NATS carries
   * the file, so whichever side dies, the row alone says who holds the database.
   */
  async beginMove(id: string, shard: number, moveId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('database.databases')
      .set({ move_id: moveId })
      .where('id', '=', id)
      .where('shard', '=', shard)
      .where('move_id', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** The commit point of a move: only while the move is still the one the source began. */
  async commitMove(id: string, from: number, to: number, moveId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('database.databases')
      .set({ shard: to, move_id: null })
      .where('id', '=', id)
      .where('shard', '=', from)
      .where('move_id', '=', moveId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Gives up a move; once this succeeds the target can no longer commit it. */
  async abortMove(id: string, from: number, moveId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('database.databases')
      .set({ move_id: null })
      .where('id', '=', id)
      .where('shard', '=', from)
      .where('move_id', '=', moveId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** What the database holds now (docs/databases.md, "Storage"); not scoped: its shard measured it. */
  async recordStorage(id: string, bytes: number): Promise<void> {
    await this.db
      .updateTable('database.databases')
      .set({ storage_bytes: Math.max(0, Math.round(bytes)) })
      .where('id', '=', id)
      .execute();
  }

  /** Bytes the organization's databases other than `id` hold, as last measured. */
  async storageOfOthers(organizationId: string, id: string): Promise<number> {
    const row = await this.db
      .selectFrom('database.databases')
      .select((eb) =>
        eb.cast<string>(eb.fn.coalesce(eb.fn.sum('storage_bytes'), eb.lit(0)), 'text').as('bytes'),
      )
      .where('organization_id', '=', organizationId)
      .where('id', '<>', id)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /** Bytes the organization's databases hold together, and its largest one. */
  async storage(organizationId: string): Promise<{ total: number; largest: number }> {
    const row = await this.db
      .selectFrom('database.databases')
      .select((eb) => [
        eb.cast<string>(eb.fn.coalesce(eb.fn.sum('storage_bytes'), eb.lit(0)), 'text').as('total'),
        eb.cast<string>(eb.fn.coalesce(eb.fn.max('storage_bytes'), eb.lit(0)), 'text').as('largest'),
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return { total: Number(row?.total ?? 0), largest: Number(row?.largest ?? 0) };
  }

  /** The ids among `ids` of the organization's databases. */
  async existing(organizationId: string, ids: string[]): Promise<string[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows = await this.db
      .selectFrom('database.databases')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where((eb) => eb('id', '=', eb.fn.any(sql<string[]>`${wanted}::uuid[]`)))
      .execute();
    return rows.map((row) => row.id);
  }

  async find(organizationId: string, id: string): Promise<DatabaseRecord | null> {
    const row = await this.db
      .selectFrom('database.databases')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toDatabaseRecord(row) : null;
  }

  async list(organizationId: string, page: PageRequest): Promise<Page<DatabaseRecord>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('database.databases')
        .selectAll()
        .where('organization_id', '=', organizationId);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toDatabaseRecord);
  }

  /** The database as changed; null when it was deleted since it was read. */
  update(
    database: DatabaseRecord,
    changes: DatabaseChanges,
    caller: AuditCaller,
  ): Promise<DatabaseRecord | null> {
    return nameUnique(changes.name ?? database.name, async () => {
      const row = await audit.recording(
        this.db,
        caller,
        (trx) =>
          trx
            .updateTable('database.databases')
            .set({ ...toDatabaseUpdate(changes), updated_at: sql<Date>`now()` })
            .where('organization_id', '=', database.organizationId)
            .where('id', '=', database.id)
            .returningAll()
            .executeTakeFirst(),
        (updated) => ({
          action: 'database.updated',
          resource: { type: 'database', id: updated.id, name: updated.name },
          details: { fields: Object.keys(changes) },
        }),
      );
      return row ? toDatabaseRecord(row) : null;
    });
  }

  /** Deletes the row only while `shard` holds the database, so no other replica's file is orphaned. */
  async delete(organizationId: string, id: string, shard: number, caller: AuditCaller): Promise<boolean> {
    const deleted = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .deleteFrom('database.databases')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .where('shard', '=', shard)
          .returning(['id', 'name'])
          .executeTakeFirst(),
      (row) => ({ action: 'database.deleted', resource: { type: 'database', id: row.id, name: row.name } }),
    );
    return deleted !== undefined;
  }
}

/** The organization's database names are unique (`databases_organization_name_key`). */
async function nameUnique<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new DatabaseNameTakenError(name);
    throw error;
  }
}
