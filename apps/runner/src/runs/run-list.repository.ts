import { DEFAULT_PAGE_SIZE, type Page } from '#common';
import type { RunTrigger } from '#contracts';
import { decodeCursor, encodeCursor, InjectKysely, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';

import type { RunRecord } from '../engine/run-state.js';
import type { DB } from '../runner.tables.js';
import { commonConditions, type RunFilter, type StatusCondition, statusBranches } from './run-filter.js';
import type { HeldBy } from '../start/run-flow.js';

/** A run as a list of runs shows it. */
export type RunSummaryRecord = Pick<
  RunRecord,
  | 'id'
  | 'workflowId'
  | 'version'
  | 'trigger'
  | 'triggerNodeId'
  | 'status'
  | 'createdBy'
  | 'createdAt'
  | 'parentRunId'
  | 'parentNodeId'
  | 'iteration'
>;

/** A run as the dashboard lists it, with the workflow's name when the run started. */
/** Runs held at one gate under one key (`RunListRepository.held`). */
export interface HeldRunsRecord {
  workflowId: string;
  workflowName: string;
  heldBy: HeldBy;
  key: string | null;
  runs: number;
  oldestAt: Date;
}

export interface RecentRunRecord {
  id: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  trigger: RunTrigger;
  status: RunRecord['status'];
  createdAt: Date;
}

export interface FailedStepRecord {
  runId: string;
  workflowId: string;
  workflowName: string;
  step: string;
  error: string | null;
  at: Date;
}

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

/** Lists of runs: a workflow's or the organization's, filtered, and the dashboard's newest runs and failed steps. */
@Injectable()
export class RunListRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Runs of the organization the filter matches, newest first, by keyset on their time-ordered ids:
   * runs created between two pages sort before the cursor, so none is skipped or repeated. Each status
   * asked for is its own branch, ordered and limited by its own index walk, and the branches are
   * merged (`Merge Append`): one `status IN (…)` would have Postgres read every match to sort them.
   */
  async search(
    organizationId: string,
    filter: RunFilter,
    page: PageRequest,
    now = new Date(),
  ): Promise<Page<RunSummaryRecord>> {
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const branch = (status: StatusCondition | null) => {
      let query = this.db
        .selectFrom('runner.runs')
        .select(SUMMARY_COLUMNS)
        .where((eb) => commonConditions(eb, organizationId, filter));
      if (status !== null) query = query.where(status);
      if (cursor !== undefined) query = query.where('id', '<', cursor);
      return query.orderBy('id', 'desc').limit(limit + 1);
    };
    const [first, ...others] = statusBranches(filter.statuses, now).map(branch);
    const rows =
      first === undefined || others.length === 0
        ? await (first ?? branch(null)).execute()
        : await this.db
            .selectFrom(
              others
                .reduce(
                  (union, other, index) =>
                    union.unionAll(this.db.selectFrom(other.as(`b${index + 1}`)).selectAll()),
                  this.db.selectFrom(first.as('b0')).selectAll(),
                )
                .as('r'),
            )
            .selectAll()
            .orderBy('id', 'desc')
            .limit(limit + 1)
            .execute();
    const data = rows.slice(0, limit);
    const last = data.at(-1);
    return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
  }

  /** The organization's newest runs, from `runs_recent_idx`. */
  recent(organizationId: string, limit: number): Promise<RecentRunRecord[]> {
    return (
      this.db
        .selectFrom('runner.runs')
        .select([
          'id',
          'workflow_id as workflowId',
          'workflow_name as workflowName',
          'project_id as projectId',
          'trigger',
          'status',
          'created_at as createdAt',
        ])
        .where('organization_id', '=', organizationId)
        // A loop's iterations are read through their loop's run, not among the runs people look for.
        .where('iteration', 'is', null)
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute()
    );
  }

  /**
   * The organization's queued runs held back by flow control, per workflow, gate and key, most
   * first (`runs_held_organization_idx`).
   */
  held(organizationId: string, limit: number): Promise<HeldRunsRecord[]> {
    const key = sql<string | null>`CASE held_by WHEN 'concurrency' THEN concurrency_key
      WHEN 'throttle' THEN throttle_key WHEN 'debounce' THEN debounce_key END`;
    return this.db
      .selectFrom('runner.runs')
      .select((eb) => [
        'workflow_id as workflowId',
        eb.fn.max('workflow_name').as('workflowName'),
        sql<HeldBy>`held_by`.as('heldBy'),
        key.as('key'),
        sql<number>`count(*)::integer`.as('runs'),
        eb.fn.min('created_at').as('oldestAt'),
      ])
      .where('organization_id', '=', organizationId)
      .where('held_by', 'is not', null)
      .where('status', '=', sql.lit('queued'))
      .groupBy(['workflow_id', 'held_by', key])
      .orderBy('runs', 'desc')
      .orderBy('oldestAt')
      .limit(limit)
      .execute();
  }

  /**
   * The steps that failed since `since`, newest run first. A failed step errors its run, which
   * finishes no earlier than the step failed, so the runs errored since `since` (`runs_errored_idx`,
   * whose predicate the status literal matches) hold every such step. A step's failure time is its
   * start plus its duration.
   */
  failures(organizationId: string, since: Date, limit: number): Promise<FailedStepRecord[]> {
    return this.db
      .selectFrom((db) =>
        db
          .selectFrom((errored) =>
            errored
              .selectFrom('runner.runs')
              .select(['id', 'workflow_id', 'workflow_name', 'finished_at'])
              .where('organization_id', '=', organizationId)
              .where('status', '=', sql.lit('errored'))
              .where('finished_at', '>=', since)
              // A failed iteration fails its loop's step, which is listed with its own run.
              .where('iteration', 'is', null)
              .orderBy('finished_at', 'desc')
              .limit(limit)
              .as('r'),
          )
          .innerJoin('runner.run_steps as s', (join) =>
            join.onRef('s.run_id', '=', 'r.id').on('s.status', '=', sql.lit('error')),
          )
          .select((eb) => [
            'r.id as runId',
            'r.workflow_id as workflowId',
            'r.workflow_name as workflowName',
            'r.finished_at as finishedAt',
            's.position',
            's.node_id as step',
            's.error',
            sql<Date>`coalesce(${eb.ref('s.started_at')} + make_interval(secs => ${eb.ref('s.ms')} / 1000.0), ${eb.ref('r.finished_at')})`.as(
              'at',
            ),
          ])
          .as('failed'),
      )
      .select(['runId', 'workflowId', 'workflowName', 'step', 'error', 'at'])
      .where('at', '>=', since)
      .orderBy('finishedAt', 'desc')
      .orderBy('position')
      .limit(limit)
      .execute();
  }
}
