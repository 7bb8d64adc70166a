import { ArrayMaxSize, IsArray, IsString, MaxLength } from 'class-validator';

import type { PendingApprovalDto } from '../agents/approval.dto.js';
import type { UnhealthyConnection, UnhealthyTrigger } from '../events/event.messages.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { RunStatus } from '../runs/run-status.js';
import type { RunTrigger } from '../runs/start-run.request.js';
import type { RunHeldBy } from '../workflows/flow-control.js';
import type { DashboardActivityDayDto } from './dashboard.dto.js';

/**
 * What each service tells the dashboard and the billing route about one organization. Each answer
 * comes from indexes or counters, never from a scan of every run.
 */

/** Catalog: projects, and runs counted per UTC day (the run quota's own counter). */
export interface CatalogOverview {
  projects: number;
  /** The last seven UTC calendar days, today included, oldest first, zeros included. */
  activity: DashboardActivityDayDto[];
}

/** A recent run as the runner recorded it; names are the workflow's at the time of the run. */
export interface RecentRun {
  id: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  trigger: RunTrigger;
  status: RunStatus;
  createdAt: string;
}

export interface RecentFailure {
  runId: string;
  workflowId: string;
  workflowName: string;
  step: string;
  error: string | null;
  at: string;
}

/** Queued runs held back by flow control, per workflow, gate and key (docs/flow-control.md). */
export interface HeldRuns {
  workflowId: string;
  workflowName: string;
  heldBy: RunHeldBy;
  key: string | null;
  runs: number;
  oldestAt: string;
}

export interface RunnerOverview {
  runs: RecentRun[];
  failures: RecentFailure[];
  held: HeldRuns[];
}

export interface WorkflowOverview {
  workflows: number;
  published: number;
}

export interface EventsOverview {
  connections: number;
  /** Active subscriptions, as the plan counts them. */
  subscriptions: number;
  triggers: UnhealthyTrigger[];
  /** Absent from an events service of an earlier version. */
  unhealthyConnections?: UnhealthyConnection[];
}

export interface AgentOverview {
  agents: number;
  approvals: PendingApprovalDto[];
}

export interface DatabaseOverview {
  databases: number;
  /** Bytes all the organization's databases hold, as last measured. */
  storageBytes: number;
  /** Bytes its largest database holds. */
  largestDatabaseBytes: number;
}

/** The most ids a names lookup takes: more than one dashboard lists (10 runs, 20 failures, 500 triggers, 100 approvals). */
export const NAMES_MAX_IDS = 1_000;

export class NamesRequest {
  @IsArray()
  @ArrayMaxSize(NAMES_MAX_IDS)
  @IsString({ each: true })
  @MaxLength(MESSAGE_ID_MAX_LENGTH, { each: true })
  ids!: string[];
}

/** Current names of the ids that still exist; a deleted one is absent. */
export interface NamesReply {
  names: Record<string, string>;
}
