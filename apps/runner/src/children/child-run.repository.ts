import { DEFAULT_PAGE_SIZE, type Page } from '#common';
import { decodeCursor, encodeCursor, InjectKysely, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';

import type { RunStatus } from '#contracts';

import type { StoredRunStatus } from '../engine/run-state.js';
import { statusBranches } from '../runs/run-filter.js';
import type { RunSummaryRecord } from '../runs/run-list.repository.js';
import type { DB } from '../runner.tables.js';

/** A child run as the step that started it reads it. */
export interface ChildRunState {
  id: string;
  childKey: string;
  /** A loop iteration's index; null for a called workflow. */
  iteration: number | null;
  status: StoredRunStatus;
  reply: string | null;
  error: string | null;
}

const STATE_COLUMNS = ['id', 'child_key as childKey', 'iteration', 'status', 'reply', 'error'] as const;

const SUMMARY_COLUMNS = [
  'id',
  'workflow_id as workflowId',
  'version',
  'trigger',
  'trigger_node_id as triggerNodeId',
  'status',
  'created_by as createdBy',
  'created_at as createdAt',
  'parent_run_id as parentRunId',
  'parent_node_id as parentNodeId',
  'iteration',
] as const;

/** The order of a run's children: iterations by index (a called workflow first), then creation. */
const order = sql<number>`coalesce(iteration, -1)`;

/** A run's children: the claim of one, what they came to, and the pages of `GET /runs/{id}/children`. */
@Injectable()
export class ChildRunRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** The child a parent's step claimed with `childKey` (the unique `runs_child_key`), if any. */
  async byKey(parentRunId: string, childKey: string): Promise<ChildRunState | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select(STATE_COLUMNS)
      .where('parent_run_id', '=', parentRunId)
      .where('child_key', '=', childKey)
      .executeTakeFirst();
    return row ? stateOf(row) : null;
  }

  /** One child of `parentRunId`, by its id. */
  async byId(parentRunId: string, runId: string): Promise<ChildRunState | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select(STATE_COLUMNS)
      .where('id', '=', runId)
      .where('parent_run_id', '=', parentRunId)
      .executeTakeFirst();
    return row ? stateOf(row) : null;
  }

  /**
   * The children the step of `parentNodeId` started, in order (`runs_children_idx`): those whose
   * iteration is at least `fromIteration`, at most `limit` of them.
   */
  async ofStep(
    parentRunId: string,
    parentNodeId: string,
    { fromIteration, limit }: { fromIteration?: number; limit?: number } = {},
  ): Promise<ChildRunState[]> {
    let query = this.db
      .selectFrom('runner.runs')
      .select(STATE_COLUMNS)
      .where('parent_run_id', '=', parentRunId)
      .where('parent_node_id', '=', parentNodeId);
    if (fromIteration !== undefined) query = query.where(order, '>=', fromIteration);
    query = query.orderBy(order).orderBy('id');
    if (limit !== undefined) query = query.limit(limit);
    return (await query.execute()).map(stateOf);
  }

  /**
   * A page of the run's children, oldest first by iteration then creation, the keyset being the last
   * child's place in that order (its id is the cursor). Null when the run is not the organization's.
   */
  async page(
    organizationId: string,
    runId: string,
    filter: { nodeId?: string; statuses?: readonly RunStatus[] },
    page: PageRequest,
    now = new Date(),
  ): Promise<Page<RunSummaryRecord> | null> {
    const parent = await this.db
      .selectFrom('runner.runs')
      .select('id')
      .where('id', '=', runId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    if (!parent) return null;
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    let query = this.db
      .selectFrom('runner.runs')
      .select(SUMMARY_COLUMNS)
      .where('parent_run_id', '=', runId)
      .where('organization_id', '=', organizationId);
    if (filter.nodeId !== undefined) query = query.where('parent_node_id', '=', filter.nodeId);
    if (filter.statuses !== undefined && filter.statuses.length > 0) {
      // As a client reads them: `unknown` is a run past its 30 days, whatever it stored.
      const branches = statusBranches(filter.statuses, now);
      query = query.where((eb) => eb.or(branches.flatMap((branch) => (branch ? [branch(eb)] : []))));
    }
    if (cursor !== undefined) {
      query = query.where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple(order, 'id'),
          '>',
          selectFrom('runner.runs as c')
            .select([sql<number>`coalesce(c.iteration, -1)`.as('place'), 'c.id'])
            .where('c.id', '=', cursor)
            .where('c.parent_run_id', '=', runId)
            .$asTuple('place', 'id'),
        ),
      );
    }
    const rows = await query
      .orderBy(order)
      .orderBy('id')
      .limit(limit + 1)
      .execute();
    const data = rows.slice(0, limit);
    const last = data.at(-1);
    return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
  }
}

function stateOf(row: {
  id: string;
  childKey: string | null;
  iteration: number | null;
  status: StoredRunStatus;
  reply: string | null;
  error: string | null;
}): ChildRunState {
  return { ...row, childKey: row.childKey ?? '' };
}
