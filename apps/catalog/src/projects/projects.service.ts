import { DomainException, type Page } from '#common';
import {
  type CreateProjectDto,
  type PageQueryDto,
  type Principal,
  type ProjectDto,
  type UpdateProjectDto,
} from '#contracts';
import { isId, mapPage } from '#persistence';
import { Injectable } from '@nestjs/common';

import { PlanService } from '../billing/plan.service.js';
import { ProjectDeletion } from './project-deletion.service.js';
import type { ProjectRecord } from './project.mapper.js';
import { ProjectRepository } from './project.repository.js';

export function toProjectDto(project: ProjectRecord): ProjectDto {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    createdBy: project.createdBy,
    createdAt: project.createdAt.toISOString(),
    updatedAt: project.updatedAt.toISOString(),
  };
}

@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly plans: PlanService,
    private readonly deletion: ProjectDeletion,
  ) {}

  async list(principal: Principal, query: PageQueryDto): Promise<Page<ProjectDto>> {
    return mapPage(await this.projects.list(principal.organizationId, query), toProjectDto);
  }

  async create(principal: Principal, input: CreateProjectDto): Promise<ProjectDto> {
    const { organizationId } = principal;
    const limit = (await this.plans.planOf(organizationId)).limits.projects;
    const project = await this.projects.insertWithinLimit(
      {
        organizationId,
        name: input.name,
        description: input.description ?? null,
        createdBy: principal.userId,
      },
      limit,
      principal,
    );
    if (!project) throw DomainException.planLimit('projects', limit);
    return toProjectDto(project);
  }

  async get(principal: Principal, id: string): Promise<ProjectDto> {
    return toProjectDto(await this.findOwned(principal, id));
  }

  async update(principal: Principal, id: string, input: UpdateProjectDto): Promise<ProjectDto> {
    const project = await this.findOwned(principal, id);
    const changes = {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
    };
    const updated = await this.projects.update(project, changes, principal);
    if (!updated) throw DomainException.notFound('project', id);
    return toProjectDto(updated);
  }

  /** Answers once the project is gone for everyone; its workflows follow, durably. */
  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    if (!isId(id) || !(await this.deletion.deleteOne(principal, id))) {
      throw DomainException.notFound('project', id);
    }
    return { deleted: true };
  }

  private async findOwned(principal: Principal, id: string): Promise<ProjectRecord> {
    const project = isId(id) ? await this.projects.find(principal.organizationId, id) : null;
    if (!project) throw DomainException.notFound('project', id);
    return project;
  }
}
