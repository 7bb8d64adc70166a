import { BatchedLookup, isId, newId, paginate, type PageRequest, preparedRows } from '#persistence';
import type { Page } from '#common';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, IsNull, Not } from 'typeorm';

import { ProjectEntity } from './project.entity.js';

export interface NewProject {
  organizationId: string;
  name: string;
  description: string | null;
  createdBy: string | null;
}

export type ProjectChanges = Partial<Pick<ProjectEntity, 'name' | 'description'>>;

/** Which project a read asks for: ids are only unique within their organization's reads. */
interface ProjectKey {
  organizationId: string;
  id: string;
}

const projectKeyOf = (organizationId: string, id: string) => `${organizationId}/${id}`;

/** A deleted project a sweep has taken. */
export interface DeletedProject {
  id: string;
  organizationId: string;
}

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

  /** The current names of those of `ids` that exist and are not deleted. */
  async names(organizationId: string, ids: readonly string[]): Promise<Record<string, string>> {
    const valid = ids.filter(isId);
    if (valid.length === 0) return {};
    const rows: Array<{ id: string; name: string }> = await this.dataSource.query(
      `SELECT id, name FROM catalog.projects
        WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL`,
      [organizationId, valid],
    );
    return Object.fromEntries(rows.map((row) => [row.id, row.name]));
  }

  /**
   * The hottest read of the service. Reads that arrive together share one prepared statement
   * (`BatchedLookup`): under load a statement answers many of them, so each costs a fraction of a
   * Postgres round trip.
   */
  find(organizationId: string, id: string): Promise<ProjectEntity | null> {
    return this.lookup.load({ organizationId, id });
  }

  private readonly lookup = new BatchedLookup<ProjectKey, ProjectEntity>(
    async (keys) => {
      const rows = await preparedRows<Record<string, unknown>>(
        this.dataSource,
        'catalog.projects.find',
        `SELECT p.id, p.organization_id, p.name, p.description, p.created_by, p.created_at, p.updated_at
         FROM catalog.projects p
         JOIN unnest($1::text[], $2::uuid[]) AS wanted (organization_id, id)
           ON p.organization_id = wanted.organization_id AND p.id = wanted.id
         WHERE p.deleted_at IS NULL`,
        [keys.map((key) => key.organizationId), keys.map((key) => key.id)],
      );
      const found = new Map(
        rows.map((row) => [projectKeyOf(row.organization_id as string, row.id as string), row]),
      );
      return keys.map((key) => {
        const row = found.get(projectKeyOf(key.organizationId, key.id));
        return row ? this.toEntity(row) : null;
      });
    },
    { concurrency: 2, maxBatchSize: 100 },
  );

  private toEntity(row: Record<string, unknown>): ProjectEntity {
    return this.repo().create({
      id: row.id as string,
      organizationId: row.organization_id as string,
      name: row.name as string,
      description: row.description as string | null,
      createdBy: row.created_by as string | null,
      createdAt: row.created_at as Date,
      updatedAt: row.updated_at as Date,
    });
  }

  list(organizationId: string, page: PageRequest): Promise<Page<ProjectEntity>> {
    const query = this.repo()
      .createQueryBuilder('project')
      .where('project.organization_id = :organizationId AND project.deleted_at IS NULL', {
        organizationId,
      });
    return paginate(query, page);
  }

  async update(project: ProjectEntity, changes: ProjectChanges): Promise<ProjectEntity> {
    return this.repo().save(Object.assign(project, changes));
  }

  /**
   * Marks the project deleted, its cascade leased to the caller for `leaseMs`, and gives its place
   * in the plan back; false when there is no such project (or it is already deleted).
   */
  markDeleted(organizationId: string, id: string, leaseMs: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const result = await this.repo(manager)
        .createQueryBuilder()
        .update()
        .set({ deletedAt: () => 'now()', purgeAfter: () => 'now() + make_interval(secs => :leaseSeconds)' })
        .where('organization_id = :organizationId AND id = :id AND deleted_at IS NULL', {
          organizationId,
          id,
          leaseSeconds: leaseMs / 1000,
        })
        .execute();
      if ((result.affected ?? 0) === 0) return false;
      await manager.query(
        'UPDATE catalog.project_counts SET projects = projects - 1 WHERE organization_id = $1',
        [organizationId],
      );
      return true;
    });
  }

  /**
   * Takes up to `limit` deleted projects whose cascade is due (never finished: its try failed or
   * died), leasing each for `leaseMs`. The claim commits before the caller asks workflow anything.
   */
  async claimDeleted(limit: number, leaseMs: number): Promise<DeletedProject[]> {
    const [rows] = (await this.dataSource.query(
      `UPDATE catalog.projects p SET purge_after = now() + make_interval(secs => $2 / 1000.0)
       FROM (SELECT id FROM catalog.projects WHERE deleted_at IS NOT NULL AND purge_after <= now()
             ORDER BY purge_after LIMIT $1 FOR UPDATE SKIP LOCKED) due
       WHERE p.id = due.id
       RETURNING p.id, p.organization_id`,
      [limit, leaseMs],
    )) as [Array<{ id: string; organization_id: string }>, number];
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id }));
  }

  /** Removes a deleted project's row, once nothing else remains to be done for it. */
  async purge(id: string): Promise<void> {
    await this.repo().delete({ id, deletedAt: Not(IsNull()) });
  }
}
