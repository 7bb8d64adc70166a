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

  /**
   * Inserts the project unless the organization already has `limit`: the conditional increment of its
   * count row and the insert commit together, so concurrent creates cannot pass the limit.
   */
  insertWithinLimit(project: NewProject, limit: number): Promise<ProjectEntity | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO catalog.project_counts (organization_id) VALUES ($1) ON CONFLICT (organization_id) DO NOTHING`,
        [project.organizationId],
      );
      const [counted] = (await manager.query(
        `UPDATE catalog.project_counts SET projects = projects + 1
         WHERE organization_id = $1 AND projects < $2 RETURNING projects`,
        [project.organizationId, limit],
      )) as [unknown[], number];
      if (counted.length === 0) return null;
      const repo = this.repo(manager);
      return repo.save(repo.create({ id: newId(), ...project }));
    });
  }

  async count(organizationId: string): Promise<number> {
    const rows: Array<{ projects: number }> = await this.dataSource.query(
      'SELECT projects FROM catalog.project_counts WHERE organization_id = $1',
      [organizationId],
    );
    return rows[0]?.projects ?? 0;
  }

  /** The hottest read of the service: plain SQL, skipping the query builder. */
  async find(organizationId: string, id: string): Promise<ProjectEntity | null> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT id, organization_id, name, description, created_by, created_at, updated_at
       FROM catalog.projects WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    const row = rows[0];
    return row
      ? this.repo().create({
          id: row.id as string,
          organizationId: row.organization_id as string,
          name: row.name as string,
          description: row.description as string | null,
          createdBy: row.created_by as string | null,
          createdAt: row.created_at as Date,
          updatedAt: row.updated_at as Date,
        })
      : null;
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
    return this.dataSource.transaction(async (manager) => {
      const result = await this.repo(manager).delete({ organizationId, id });
      if ((result.affected ?? 0) === 0) return false;
      await manager.query(
        'UPDATE catalog.project_counts SET projects = projects - 1 WHERE organization_id = $1',
        [organizationId],
      );
      return true;
    });
  }
}
