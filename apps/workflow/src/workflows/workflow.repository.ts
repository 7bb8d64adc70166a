import type { Diagram } from '#contracts';
import { newId, paginate, type PageRequest } from '#persistence';
import type { Page } from '#common';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

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

  insert(workflow: NewWorkflow): Promise<WorkflowEntity> {
    const repo = this.repo();
    return repo.save(repo.create({ id: newId(), publishedVersion: null, pausedAt: null, ...workflow }));
  }

  find(organizationId: string, id: string, manager?: Transaction): Promise<WorkflowEntity | null> {
    return this.repo(manager).findOneBy({ organizationId, id });
  }

  /** Reads the row and holds it until the transaction ends: publish, pause and resume take turns. */
  findForUpdate(organizationId: string, id: string, manager: Transaction): Promise<WorkflowEntity | null> {
    return this.repo(manager)
      .createQueryBuilder('workflow')
      .setLock('pessimistic_write')
      .where('workflow.organization_id = :organizationId AND workflow.id = :id', { organizationId, id })
      .getOne();
  }

  list(organizationId: string, projectId: string, page: PageRequest): Promise<Page<WorkflowEntity>> {
    const query = this.repo()
      .createQueryBuilder('workflow')
      .where('workflow.organization_id = :organizationId AND workflow.project_id = :projectId', {
        organizationId,
        projectId,
      });
    return paginate(query, page);
  }

  async idsInProject(organizationId: string, projectId: string): Promise<string[]> {
    const rows = await this.repo().find({ select: { id: true }, where: { organizationId, projectId } });
    return rows.map((row) => row.id);
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
      await this.repo(manager).update({ organizationId, id }, changes as Record<string, unknown>);
    }
    return this.find(organizationId, id, manager);
  }

  async delete(organizationId: string, id: string, manager?: Transaction): Promise<boolean> {
    const result = await this.repo(manager).delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }
}
