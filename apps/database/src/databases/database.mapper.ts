import type { Insertable, Selectable, Updateable } from 'kysely';

import type { DatabaseDatabases } from '../database.tables.js';

/** A database's metadata; its tables and rows live in its DuckDB file on `shard`. */
export interface DatabaseRecord {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  /** The replica whose volume holds the file (docs/databases.md, "Scaling out"). */
  shard: number;
  /** Set while the file is being copied to another shard. */
  moveId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewDatabase = Pick<DatabaseRecord, 'organizationId' | 'name' | 'description' | 'shard'>;

export type DatabaseChanges = Partial<Pick<DatabaseRecord, 'name' | 'description'>>;

/** Where a database's file is, for the replicas and their moves: not scoped by organization. */
export type Placement = Pick<DatabaseRecord, 'id' | 'organizationId' | 'shard' | 'moveId'>;

/** The columns a placement is read from. */
export const PLACEMENT_COLUMNS = ['id', 'organization_id', 'shard', 'move_id'] as const;

export function toDatabaseRecord(row: Selectable<DatabaseDatabases>): DatabaseRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    description: row.description,
    shard: row.shard,
    moveId: row.move_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toDatabaseInsert(id: string, database: NewDatabase): Insertable<DatabaseDatabases> {
  return {
    id,
    organization_id: database.organizationId,
    name: database.name,
    description: database.description,
    shard: database.shard,
  };
}

/** Only the columns `changes` names. */
export function toDatabaseUpdate(changes: DatabaseChanges): Updateable<DatabaseDatabases> {
  const { name, description } = changes;
  return {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
  };
}

export function toPlacement(
  row: Pick<Selectable<DatabaseDatabases>, (typeof PLACEMENT_COLUMNS)[number]>,
): Placement {
  return { id: row.id, organizationId: row.organization_id, shard: row.shard, moveId: row.move_id };
}
