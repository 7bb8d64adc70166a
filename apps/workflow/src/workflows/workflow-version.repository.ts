import type { Page } from '#common';
import { InjectKysely, keysetPage, mapPage, newId, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../workflow.tables.js';

import {
  type NewWorkflowVersion,
  toWorkflowVersionInsert,
  toWorkflowVersionRecord,
  type WorkflowVersionRecord,
} from './workflow-version.mapper.js';

@Injectable()
export class WorkflowVersionRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  async insert(version: NewWorkflowVersion, db: Kysely<DB> = this.db): Promise<WorkflowVersionRecord> {
    const row = await db
      .insertInto('workflow.versions')
      .values(toWorkflowVersionInsert(newId(), new Date(), version))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toWorkflowVersionRecord(row);
  }

  async find(
    workflowId: string,
    number: number,
    db: Kysely<DB> = this.db,
  ): Promise<WorkflowVersionRecord | null> {
    const row = await db
      .selectFrom('workflow.versions')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row ? toWorkflowVersionRecord(row) : null;
  }

  /**
   * Newest first by number, not by id: two replicas' clocks may disagree by a few milliseconds, so
   * time-ordered ids need not follow the order in which numbers were taken. The cursor still holds
   * an id, as every cursor of the API does.
   */
  async list(workflowId: string, page: PageRequest): Promise<Page<WorkflowVersionRecord>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('workflow.versions as version')
        .selectAll('version')
        .where('version.workflow_id', '=', workflowId);
      if (after !== undefined) {
        query = query.where('version.number', '<', (eb) =>
          eb
            .selectFrom('workflow.versions as after')
            .select('after.number')
            .where('after.id', '=', after)
            .where('after.workflow_id', '=', workflowId),
        );
      }
      return query.orderBy('version.number', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toWorkflowVersionRecord);
  }
}
