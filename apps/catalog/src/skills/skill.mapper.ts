import type { Selectable, Updateable } from 'kysely';

import type { CatalogSkills } from '../catalog.tables.js';

export interface SkillRecord {
  id: string;
  organizationId: string;
  /** Set for a personal skill, which only this member lists and edits. */
  userId: string | null;
  name: string;
  description: string;
  instructions: string;
  createdAt: Date;
  updatedAt: Date;
}

export type SkillChanges = Partial<Pick<SkillRecord, 'userId' | 'name' | 'description' | 'instructions'>>;

export function toSkillRecord(row: Selectable<CatalogSkills>): SkillRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns `changes` would change; none when nothing changes, so `updated_at` then stays. */
export function skillUpdate(skill: SkillRecord, changes: SkillChanges): Updateable<CatalogSkills> {
  const update: Updateable<CatalogSkills> = {};
  if (changes.userId !== undefined && changes.userId !== skill.userId) update.user_id = changes.userId;
  if (changes.name !== undefined && changes.name !== skill.name) update.name = changes.name;
  if (changes.description !== undefined && changes.description !== skill.description)
    update.description = changes.description;
  if (changes.instructions !== undefined && changes.instructions !== skill.instructions)
    update.instructions = changes.instructions;
  return update;
}
