import type { Diagram } from '#contracts';
import type { Page } from '#common';
import { decodeCursor, encodeCursor, newId, type PageRequest } from '#persistence';
import { DEFAULT_PAGE_SIZE } from '#common';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import type { Transaction } from '../transaction.js';

import { WorkflowVersionEntity } from './workflow-version.entity.js';

export interface NewWorkflowVersion {
  workflowId: string;
  number: number;
  timeZone: string;
  diagram: Diagram;
  publishedBy: string | null;
}

@Injectable()
export class WorkflowVersionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: Transaction) {
    return (manager ?? this.dataSource.manager).getRepository(WorkflowVersionEntity);
  }

  insert(version: NewWorkflowVersion, manager?: Transaction): Promise<WorkflowVersionEntity> {
    const repo = this.repo(manager);
    return repo.save(repo.create({ id: newId(), publishedAt: new Date(), ...version }));
  }

  find(workflowId: string, number: number, manager?: Transaction): Promise<WorkflowVersionEntity | null> {
    return this.repo(manager).findOneBy({ workflowId, number });
  }

  /**
   * Newest first by number, not by id: two replicas' clocks may disagree by a few milliseconds, so
   * time-ordered ids need not follow the order in which numbers were taken. The cursor still holds
   * an id, as every cursor of the API does.
   */
  async list(workflowId: string, page: PageRequest): Promise<Page<WorkflowVersionEntity>> {
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    const query = this.repo()
      .createQueryBuilder('version')
      .where('version.workflow_id = :workflowId', { workflowId });
    if (page.cursor !== undefined) {
      query.andWhere(
        'version.number < (SELECT after.number FROM workflow.versions after WHERE after.id = :after AND after.workflow_id = :workflowId)',
        { after: decodeCursor(page.cursor) },
      );
    }
    const rows = await query
      .orderBy('version.number', 'DESC')
      .limit(limit + 1)
      .getMany();
    const data = rows.slice(0, limit);
    const last = data.at(-1);
    return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
  }
}
