import type { Page } from '#common';
import { isId, newId, paginate, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import { SkillEntity } from './skill.entity.js';

export type NewSkill = Pick<
  SkillEntity,
  'organizationId' | 'userId' | 'name' | 'description' | 'instructions'
>;
export type SkillChanges = Partial<Pick<SkillEntity, 'userId' | 'name' | 'description' | 'instructions'>>;

/** Who is looking: organization skills are visible to all; a personal skill only to its member. */
export interface SkillViewer {
  organizationId: string;
  userId: string | null;
}

const UNIQUE_VIOLATION = '23505';

export class SkillNameTakenError extends Error {}

@Injectable()
export class SkillRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(SkillEntity);
  }

  private visibleTo(viewer: SkillViewer) {
    const query = this.repo
      .createQueryBuilder('skill')
      .where('skill.organization_id = :organizationId', { organizationId: viewer.organizationId });
    return viewer.userId === null
      ? query.andWhere('skill.user_id IS NULL')
      : query.andWhere('(skill.user_id IS NULL OR skill.user_id = :userId)', { userId: viewer.userId });
  }

  list(viewer: SkillViewer, page: PageRequest): Promise<Page<SkillEntity>> {
    return paginate(this.visibleTo(viewer), page);
  }

  /** The ids among `ids` of skills the viewer can see. */
  async existing(viewer: SkillViewer, ids: string[]): Promise<string[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows = await this.visibleTo(viewer)
      .andWhere('skill.id IN (:...wanted)', { wanted })
      .select('skill.id', 'id')
      .getRawMany<{ id: string }>();
    return rows.map((row) => row.id);
  }

  /** The organization's own skills (no member's) among `ids`. */
  organizationSkills(organizationId: string, ids: string[]): Promise<SkillEntity[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return Promise.resolve([]);
    return this.visibleTo({ organizationId, userId: null })
      .andWhere('skill.id IN (:...wanted)', { wanted })
      .orderBy('skill.name')
      .getMany();
  }

  find(viewer: SkillViewer, id: string): Promise<SkillEntity | null> {
    return this.visibleTo(viewer).andWhere('skill.id = :id', { id }).getOne();
  }

  async insert(skill: NewSkill): Promise<SkillEntity> {
    return this.saveUnique(this.repo.create({ id: newId(), ...skill }));
  }

  async update(skill: SkillEntity, changes: SkillChanges): Promise<SkillEntity> {
    return this.saveUnique(Object.assign(skill, changes));
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }

  private async saveUnique(skill: SkillEntity): Promise<SkillEntity> {
    try {
      return await this.repo.save(skill);
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) {
        throw new SkillNameTakenError(skill.name);
      }
      throw error;
    }
  }
}
