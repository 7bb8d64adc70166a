import { DomainException, type Page } from '#common';
import type {
  CreateSkillDto,
  PageQueryDto,
  Principal,
  SkillDto,
  SkillOwner,
  UpdateSkillDto,
  MountedSkill,
} from '#contracts';
import { isId, mapPage } from '#persistence';
import { Injectable } from '@nestjs/common';

import type { SkillRecord } from './skill.mapper.js';
import { SkillNameTakenError, SkillRepository } from './skill.repository.js';

export function toSkillDto(skill: SkillRecord): SkillDto {
  return {
    id: skill.id,
    userId: skill.userId,
    name: skill.name,
    description: skill.description,
    instructions: skill.instructions,
    createdAt: skill.createdAt.toISOString(),
    updatedAt: skill.updatedAt.toISOString(),
  };
}

/** `me` means the signed-in member; an organization key has no member, so its skills are the organization's. */
function ownerUserId(principal: Principal, owner: SkillOwner | undefined): string | null {
  return owner === 'me' ? principal.userId : null;
}

@Injectable()
export class SkillsService {
  constructor(private readonly skills: SkillRepository) {}

  async list(principal: Principal, query: PageQueryDto): Promise<Page<SkillDto>> {
    return mapPage(await this.skills.list(principal, query), toSkillDto);
  }

  async create(principal: Principal, input: CreateSkillDto): Promise<SkillDto> {
    const skill = await this.nameChecked(input.name, () =>
      this.skills.insert(
        {
          organizationId: principal.organizationId,
          userId: ownerUserId(principal, input.owner),
          name: input.name,
          description: input.description,
          instructions: input.instructions,
        },
        principal,
      ),
    );
    return toSkillDto(skill);
  }

  async get(principal: Principal, id: string): Promise<SkillDto> {
    return toSkillDto(await this.findVisible(principal, id));
  }

  async update(principal: Principal, id: string, input: UpdateSkillDto): Promise<SkillDto> {
    const skill = await this.findVisible(principal, id);
    const { owner, ...fields } = input;
    const changes = {
      ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
      ...(owner === undefined ? {} : { userId: ownerUserId(principal, owner) }),
    };
    const updated = await this.nameChecked(input.name ?? skill.name, () =>
      this.skills.update(skill, changes, principal),
    );
    if (!updated) throw DomainException.notFound('skill', id);
    return toSkillDto(updated);
  }

  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    await this.skills.delete(await this.findVisible(principal, id), principal);
    return { deleted: true };
  }

  /**
   * The organization skills among `ids`. An agent is shared by every member, so a member's own
   * skill is never mounted on one: its instructions would reach everyone who uses the agent.
   */
  existing(principal: Principal, ids: string[]): Promise<string[]> {
    return this.skills.existing({ organizationId: principal.organizationId, userId: null }, ids);
  }

  async mount(principal: Principal, ids: string[]): Promise<MountedSkill[]> {
    const skills = await this.skills.organizationSkills(principal.organizationId, ids);
    return skills.map(({ id, name, description, instructions }) => ({ id, name, description, instructions }));
  }

  private async findVisible(principal: Principal, id: string): Promise<SkillRecord> {
    const skill = isId(id) ? await this.skills.find(principal, id) : null;
    if (!skill) throw DomainException.notFound('skill', id);
    return skill;
  }

  private async nameChecked<T>(name: string, save: () => Promise<T>): Promise<T> {
    try {
      return await save();
    } catch (error) {
      if (error instanceof SkillNameTakenError) {
        throw new DomainException(
          'skill_name_taken',
          `A skill named ${name} already exists in this organization.`,
        );
      }
      throw error;
    }
  }
}
