import type { Selectable, Updateable } from 'kysely';

import type { CatalogProjects } from '../catalog.tables.js';

/** A live project, as the service works with it. */
export interface ProjectRecord {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns a project is read with: a deleted project is never answered, so its deletion columns are not. */
export const PROJECT_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'description',
  'created_by',
  'created_at',
  'updated_at',
] as const;

export type ProjectRow = Pick<Selectable<CatalogProjects>, (typeof PROJECT_COLUMNS)[number]>;

export function toProjectRecord(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ProjectChanges = Partial<Pick<ProjectRecord, 'name' | 'description'>>;

/** The columns `changes` would change; none when nothing changes, so `updated_at` then stays. */
export function projectUpdate(project: ProjectRecord, changes: ProjectChanges): Updateable<CatalogProjects> {
  const update: Updateable<CatalogProjects> = {};
  if (changes.name !== undefined && changes.name !== project.name) update.name = changes.name;
  if (changes.description !== undefined && changes.description !== project.description)
    update.description = changes.description;
  return update;
}
