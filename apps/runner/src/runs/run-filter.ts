import {
  type OrganizationRunFilterDto,
  RUN_STATUS_RETENTION_DAYS,
  type RunStatus,
  type RunTrigger,
} from '#contracts';
import { type ExpressionBuilder, type ExpressionWrapper, sql, type SqlBool } from 'kysely';

import type { StoredRunStatus } from '../engine/run-state.js';
import type { DB } from '../runner.tables.js';

/** What narrows a list of runs, as the repository takes it (docs/runs.md, "Finding and acting on many runs"). */
export interface RunFilter {
  workflowId?: string;
  /** Any of these, as the run reads now: `unknown` is a run past its 30 days, whatever it stored. */
  statuses?: readonly RunStatus[];
  trigger?: RunTrigger;
  /** At or after (inclusive). */
  createdAfter?: Date;
  /** Before (exclusive). */
  createdBefore?: Date;
}

export function runFilterOf(dto: OrganizationRunFilterDto, workflowId = dto.workflowId): RunFilter {
  return {
    ...(workflowId === undefined ? {} : { workflowId }),
    ...(dto.status === undefined ? {} : { statuses: [...new Set(dto.status)] }),
    ...(dto.trigger === undefined ? {} : { trigger: dto.trigger }),
    ...(dto.createdAfter === undefined ? {} : { createdAfter: new Date(dto.createdAfter) }),
    ...(dto.createdBefore === undefined ? {} : { createdBefore: new Date(dto.createdBefore) }),
  };
}

const RETENTION_MS = RUN_STATUS_RETENTION_DAYS * 86_400_000;

/**
 * How much later than its id's time a run's `created_at` may be. The start makes the id, asks workflow
 * and catalog (each request bounded by the RPC timeout, seconds), then stamps `created_at`; an hour
 * is far past that. It only widens an index range; the exact `created_at` test is always applied too.
 */
export const CREATED_AFTER_ID_SLACK_MS = 3_600_000;

/**
 * The smallest UUIDv7 of a millisecond: its 48-bit time, then zeros. Every id made at or after `ms`
 * sorts at or after it, every id made before sorts before it, so a time bound on `created_at` becomes
 * a range of the id that the `(…, id DESC)` indexes walk.
 */
export function idFloorAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

type Runs = ExpressionBuilder<DB, 'runner.runs'>;

/** `created_at` as an expression no index is on: a test of each row, never an index to walk. */
const createdAt = sql<Date>`created_at + interval '0 seconds'`;
type Condition = ExpressionWrapper<DB, 'runner.runs', SqlBool>;

/** A status branch's condition on `runner.runs`. */
export type StatusCondition = (eb: Runs) => Condition;

/** The conditions every branch of a filter shares: organization, workflow, trigger, time range. */
export function commonConditions(eb: Runs, organizationId: string, filter: RunFilter): Condition {
  // A loop's iterations are read through their loop's run (`/runs/{id}/children`), never listed
  // among the runs people look for: a 10,000-item loop would bury them.
  const conditions: Condition[] = [eb('organization_id', '=', organizationId), eb('iteration', 'is', null)];
  if (filter.workflowId !== undefined) conditions.push(eb('workflow_id', '=', filter.workflowId));
  if (filter.trigger !== undefined) conditions.push(eb('trigger', '=', filter.trigger));
  // The time range is walked as a range of the id, newest first, and stops at the page; `created_at`
  // is only tested on the rows walked (`createdAt`). As a bare column it let the planner choose
  // `runs_recent_idx` instead: at 1,000,000 runs, a day's 11,000 were read and sorted for a page of 51.
  if (filter.createdAfter !== undefined) {
    conditions.push(eb(createdAt, '>=', filter.createdAfter));
    conditions.push(eb('id', '>=', idFloorAt(filter.createdAfter.getTime() - CREATED_AFTER_ID_SLACK_MS)));
  }
  if (filter.createdBefore !== undefined) {
    // An id's time is never later than its run's created_at, so this bound is exact.
    conditions.push(eb(createdAt, '<', filter.createdBefore));
    conditions.push(eb('id', '<', idFloorAt(filter.createdBefore.getTime())));
  }
  return eb.and(conditions);
}

/**
 * One condition per status asked for, each a walk of one index: a stored status within the 30 days
 * (`(organization_id[, workflow_id], status, id DESC)`), or `unknown`, a run past them (an id range).
 * No status asked for is one branch with no condition. `now` decides where the 30 days begin.
 */
export function statusBranches(
  statuses: readonly RunStatus[] | undefined,
  now: Date,
): Array<StatusCondition | null> {
  if (statuses === undefined || statuses.length === 0) return [null];
  const cutoff = new Date(now.getTime() - RETENTION_MS);
  return statuses.map((status) =>
    status === 'unknown'
      ? (eb: Runs) => eb.and([eb('created_at', '<', cutoff), eb('id', '<', idFloorAt(cutoff.getTime()))])
      : (eb: Runs) =>
          eb.and([
            eb('status', '=', status as StoredRunStatus),
            eb('created_at', '>=', cutoff),
            eb('id', '>=', idFloorAt(cutoff.getTime() - CREATED_AFTER_ID_SLACK_MS)),
          ]),
  );
}
