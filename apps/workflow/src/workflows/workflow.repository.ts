import type { Diagram } from '#contracts';
import { isId, newId, paginate, type PageRequest } from '#persistence';
import type { Page } from '#common';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, IsNull } from 'typeorm';

import type { Transaction } from '../transaction.js';

import { WorkflowEntity } from './workflow.entity.js';

export interface NewWorkflow {
  organizationId: string;
  projectId: string;
  name: string;
  description: string | null;
  diagram: Diagram;
  createdBy: string | null;
}

/** What a run start needs of a workflow and its live version, read together. */
export interface RunTargetRow {
  id: string;
  name: string;
  projectId: string;
  pausedAt: Date | null;
  publishedVersion: number | null;
  /** The live version's; null when the workflow was never published. */
  timeZone: string | null;
  /** The draft, the live version's diagram, or null when the caller said it holds that version. */
  diagram: Diagram | null;
}

/** A deleted workflow a purge sweep has taken. */
export interface DeletedWorkflow {
  id: string;
  organizationId: string;
}

export type WorkflowChanges = Partial<
  Pick<WorkflowEntity, 'name' | 'description' | 'diagram' | 'publishedVersion' | 'pausedAt'>
>;

@Injectable()
export class WorkflowRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: Transaction) {
    return (manager ?? this.dataSource.manager).getRepository(WorkflowEntity);
  }

  transaction<T>(work: (manager: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Inserts the workflow unless its project was deleted (null). The project's lock is shared with
   * other creates and exclusive against the project's deletion (`markProjectDeleted`): either this
   * insert commits first and the deletion marks the workflow, or the deletion does and the look-up,
   * a statement after the lock, sees it.
   */
  insert(workflow: NewWorkflow): Promise<WorkflowEntity | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock_shared(hashtext('project-workflows:' || $1))`, [
        workflow.projectId,
      ]);
      const deleted: unknown[] = await manager.query(
        'SELECT 1 FROM workflow.deleted_projects WHERE organization_id = $1 AND project_id = $2',
        [workflow.organizationId, workflow.projectId],
      );
      if (deleted.length > 0) return null;
      const repo = this.repo(manager);
      return repo.save(
        repo.create({
          id: newId(),
          publishedVersion: null,
          pausedAt: null,
          deletedAt: null,
          purgeAfter: null,
          ...workflow,
        }),
      );
    });
  }

  find(organizationId: string, id: string, manager?: Transaction): Promise<WorkflowEntity | null> {
    return this.repo(manager).findOneBy({ organizationId, id, deletedAt: IsNull() });
  }

  /**
   * The workflow with its live version in one round trip, the hot read of every run start. The
   * diagram is the draft's with `draft`, else the live version's unless that is `knownVersion`.
   */
  async findRunTarget(
    organizationId: string,
    id: string,
    draft: boolean,
    knownVersion: number | null,
  ): Promise<RunTargetRow | null> {
    const rows: RunTargetRow[] = await this.dataSource.query(
      `SELECT w.id, w.name, w.project_id AS "projectId", w.paused_at AS "pausedAt",
         w.published_version AS "publishedVersion", v.time_zone AS "timeZone",
         CASE WHEN $3 THEN w.diagram
              WHEN w.published_version IS DISTINCT FROM $4::int THEN v.diagram END AS diagram
       FROM workflow.workflows w
       LEFT JOIN workflow.versions v ON v.workflow_id = w.id AND v.number = w.published_version
       WHERE w.organization_id = $1 AND w.id = $2 AND w.deleted_at IS NULL`,
      [organizationId, id, draft, knownVersion],
    );
    return rows[0] ?? null;
  }

  /** Reads the row and holds it until the transaction ends: publish, pause and resume take turns. */
  findForUpdate(organizationId: string, id: string, manager: Transaction): Promise<WorkflowEntity | null> {
    return this.repo(manager)
      .createQueryBuilder('workflow')
      .setLock('pessimistic_write')
      .where('workflow.organization_id = :organizationId AND workflow.id = :id', { organizationId, id })
      .andWhere('workflow.deleted_at IS NULL')
      .getOne();
  }

  list(organizationId: string, projectId: string, page: PageRequest): Promise<Page<WorkflowEntity>> {
    const query = this.repo()
      .createQueryBuilder('workflow')
      .where('workflow.organization_id = :organizationId AND workflow.project_id = :projectId', {
        organizationId,
        projectId,
      })
      .andWhere('workflow.deleted_at IS NULL');
    return paginate(query, page);
  }

  /** Workflows not deleted, and those of them with a live version, from the organization's index. */
  async counts(organizationId: string): Promise<{ workflows: number; published: number }> {
    const rows: Array<{ workflows: number; published: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS workflows, count(published_version)::int AS published
         FROM workflow.workflows WHERE organization_id = $1 AND deleted_at IS NULL`,
      [organizationId],
    );
    return rows[0] ?? { workflows: 0, published: 0 };
  }

  /** The current names of those of `ids` that exist and are not deleted. */
  async names(organizationId: string, ids: readonly string[]): Promise<Record<string, string>> {
    const valid = ids.filter(isId);
    if (valid.length === 0) return {};
    const rows: Array<{ id: string; name: string }> = await this.dataSource.query(
      `SELECT id, name FROM workflow.workflows
        WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL`,
      [organizationId, valid],
    );
    return Object.fromEntries(rows.map((row) => [row.id, row.name]));
  }

  /**
   * Writes only the columns in `changes` (and `updated_at`), so a rename cannot undo a publish or a
   * pause that committed after the workflow was read.
   */
  async update(
    organizationId: string,
    id: string,
    changes: WorkflowChanges,
    manager?: Transaction,
  ): Promise<WorkflowEntity | null> {
    if (Object.keys(changes).length > 0) {
      // TypeORM's deep-partial type cannot follow the diagram's open index signatures.
      await this.repo(manager).update(
        { organizationId, id, deletedAt: IsNull() },
        changes as Record<string, unknown>,
      );
    }
    return this.find(organizationId, id, manager);
  }

  /**
   * Marks the workflow deleted, with its purge leased to the caller for `leaseMs`; false when there
   * is no such workflow (or it is already deleted).
   */
  async markDeleted(organizationId: string, id: string, leaseMs: number): Promise<boolean> {
    const result = await this.repo()
      .createQueryBuilder()
      .update()
      .set({ deletedAt: () => 'now()', purgeAfter: () => 'now() + make_interval(secs => :leaseSeconds)' })
      .where('organization_id = :organizationId AND id = :id AND deleted_at IS NULL', {
        organizationId,
        id,
        leaseSeconds: leaseMs / 1000,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Remembers the project as deleted and marks all its workflows deleted, due for the purge sweep at
   * once; answers how many were marked. Idempotent. The project's lock is taken exclusively, so no
   * create of a workflow in it is half done (see `insert`).
   */
  markProjectDeleted(organizationId: string, projectId: string): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('project-workflows:' || $1))`, [projectId]);
      await manager.query(
        `INSERT INTO workflow.deleted_projects (organization_id, project_id) VALUES ($1, $2)
         ON CONFLICT DO NOTHING`,
        [organizationId, projectId],
      );
      const result = await this.repo(manager)
        .createQueryBuilder()
        .update()
        .set({ deletedAt: () => 'now()', purgeAfter: () => 'now()' })
        .where('organization_id = :organizationId AND project_id = :projectId AND deleted_at IS NULL', {
          organizationId,
          projectId,
        })
        .execute();
      return result.affected ?? 0;
    });
  }

  /**
   * Takes up to `limit` deleted workflows whose purge is due (never tried, or a try that failed or
   * died), leasing each for `leaseMs`. The claim commits before the caller asks the runner anything;
   * SKIP LOCKED lets every replica's sweep take its own rows.
   */
  async claimDeleted(limit: number, leaseMs: number): Promise<DeletedWorkflow[]> {
    const [rows] = (await this.dataSource.query(
      `UPDATE workflow.workflows w SET purge_after = now() + make_interval(secs => $2 / 1000.0)
       FROM (SELECT id FROM workflow.workflows WHERE deleted_at IS NOT NULL AND purge_after <= now()
             ORDER BY purge_after LIMIT $1 FOR UPDATE SKIP LOCKED) due
       WHERE w.id = due.id
       RETURNING w.id, w.organization_id`,
      [limit, leaseMs],
    )) as [Array<{ id: string; organization_id: string }>, number];
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id }));
  }

  /** Removes deleted workflows with their versions and schedules (foreign keys cascade). */
  async purge(ids: readonly string[]): Promise<void> {
    await this.repo()
      .createQueryBuilder()
      .delete()
      .where('id IN (:...ids) AND deleted_at IS NOT NULL', { ids })
      .execute();
  }
}
