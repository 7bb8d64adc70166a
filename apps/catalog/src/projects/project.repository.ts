import { newId, paginate, type PageRequest } from '#persistence';
import type { Page } from '#common';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

import { ProjectEntity } from './project.entity.js';

export interface NewProject {
  organizationId: string;
  name: string;
  description: string | null;
  createdBy: string | null;
}

export type ProjectChanges = Partial<Pick<ProjectEntity, 'name' | 'description'>>;

@Injectable()
export class ProjectRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(ProjectEntity);
  }

  /** Serializes project creation per organization so the plan limit cannot be overrun by a race. */
  async transactionLockedFor<T>(
    organizationId: string,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`projects:${organizationId}`]);
      return work(manager);
    });
  }

  count(organizationId: string, manager?: EntityManager): Promise<number> {
    return this.repo(manager).countBy({ organizationId });
  }

  insert(project: NewProject, manager?: EntityManager): Promise<ProjectEntity> {
    const repo = this.repo(manager);
    return repo.save(repo.create({ id: newId(), ...project }));
  }

  find(organizationId: string, id: string): Promise<ProjectEntity | null> {
    return this.repo().findOneBy({ organizationId, id });
  }

  list(organizationId: string, page: PageRequest): Promise<Page<ProjectEntity>> {
    const query = this.repo()
      .createQueryBuilder('project')
      .where('project.organization_id = :organizationId', {
        organizationId,
      });
    return paginate(query, page);
  }

  async update(project: ProjectEntity, changes: ProjectChanges): Promise<ProjectEntity> {
    return this.repo().save(Object.assign(project, changes));
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.repo().delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }
}
