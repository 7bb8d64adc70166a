import type { Page } from '#common';
import { type AuditCaller, InjectKysely, isId, keysetPage, newId, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';

import { audit } from '../audit/catalog-audit.js';
import type { DB } from '../catalog.tables.js';
import { type SkillChanges, type SkillRecord, skillUpdate, toSkillRecord } from './skill.mapper.js';

export type NewSkill = Pick<
  SkillRecord,
  'organizationId' | 'userId' | 'name' | 'description' | 'instructions'
>;

/** Who is looking: organization skills are visible to all; a personal skill only to its member. */
export interface SkillViewer {
  organizationId: string;
  userId: string | null;
}

const UNIQUE_VIOLATION = '23505';

export class SkillNameTakenError extends Error {}

/** The skills of the viewer's organization that the viewer can see. */
function visibleTo(viewer: SkillViewer) {
  return (eb: ExpressionBuilder<DB, 'catalog.skills'>) =>
    eb.and([
      eb('organization_id', '=', viewer.organizationId),
      viewer.userId === null
        ? eb('user_id', 'is', null)
        : eb.or([eb('user_id', 'is', null), eb('user_id', '=', viewer.userId)]),
    ]);
}

@Injectable()
export class SkillRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  list(viewer: SkillViewer, page: PageRequest): Promise<Page<SkillRecord>> {
    return keysetPage(page, async ({ after, limit }) => {
      const rows = await this.db
        .selectFrom('catalog.skills')
        .selectAll()
        .where(visibleTo(viewer))
        .$call((query) => (after === undefined ? query : query.where('id', '<', after)))
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toSkillRecord);
    });
  }

  /** The ids among `ids` of skills the viewer can see. */
  async existing(viewer: SkillViewer, ids: string[]): Promise<string[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows = await this.db
      .selectFrom('catalog.skills')
      .select('id')
      .where(visibleTo(viewer))
      .where('id', 'in', wanted)
      .execute();
    return rows.map((row) => row.id);
  }

  /** The organization's own skills (no member's) among `ids`. */
  async organizationSkills(organizationId: string, ids: string[]): Promise<SkillRecord[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows = await this.db
      .selectFrom('catalog.skills')
      .selectAll()
      .where(visibleTo({ organizationId, userId: null }))
      .where('id', 'in', wanted)
      .orderBy('name')
      .execute();
    return rows.map(toSkillRecord);
  }

  async find(viewer: SkillViewer, id: string): Promise<SkillRecord | null> {
    const row = await this.db
      .selectFrom('catalog.skills')
      .selectAll()
      .where(visibleTo(viewer))
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSkillRecord(row) : null;
  }

  async insert(skill: NewSkill, caller: AuditCaller): Promise<SkillRecord> {
    const row = await this.nameUnique(skill.name, () =>
      audit.recording(
        this.db,
        caller,
        (trx) =>
          trx
            .insertInto('catalog.skills')
            .values({
              id: newId(),
              organization_id: skill.organizationId,
              user_id: skill.userId,
              name: skill.name,
              description: skill.description,
              instructions: skill.instructions,
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        (created) => ({
          action: 'skill.created',
          resource: { type: 'skill', id: created.id, name: created.name },
          details: { owner: created.user_id === null ? 'organization' : 'me' },
        }),
      ),
    );
    return toSkillRecord(row);
  }

  /** The skill with `changes` made; null when it was deleted meanwhile. */
  async update(skill: SkillRecord, changes: SkillChanges, caller: AuditCaller): Promise<SkillRecord | null> {
    const update = skillUpdate(skill, changes);
    if (Object.keys(update).length === 0) return skill;
    const row = await this.nameUnique(changes.name ?? skill.name, () =>
      audit.recording(
        this.db,
        caller,
        (trx) =>
          trx
            .updateTable('catalog.skills')
            .set({ ...update, updated_at: sql<Date>`now()` })
            .where('id', '=', skill.id)
            .returningAll()
            .executeTakeFirst(),
        (updated) => ({
          action: 'skill.updated',
          resource: { type: 'skill', id: updated.id, name: updated.name },
          details: { fields: Object.keys(update) },
        }),
      ),
    );
    return row ? toSkillRecord(row) : null;
  }

  async delete(skill: SkillRecord, caller: AuditCaller): Promise<void> {
    await audit.recording(
      this.db,
      caller,
      (trx) => trx.deleteFrom('catalog.skills').where('id', '=', skill.id).returning('id').executeTakeFirst(),
      () => ({ action: 'skill.deleted', resource: { type: 'skill', id: skill.id, name: skill.name } }),
    );
  }

  private async nameUnique<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new SkillNameTakenError(name);
      throw error;
    }
  }
}
