import { ApiProperty } from '@nestjs/swagger';

import { CONNECTION_HEALTH, type ConnectionHealth } from '../events/connection.dto.js';
import { INTEGRATION_IDS, type IntegrationId } from '../events/integrations.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../events/event.messages.js';
import { RUN_STATUSES, type RunStatus } from '../runs/run-status.js';
import { RUN_TRIGGERS, type RunTrigger } from '../runs/start-run.request.js';
import { RUN_HELD_BY, type RunHeldBy } from '../workflows/flow-control.js';

export class DashboardActivityDayDto {
  @ApiProperty({ format: 'date', example: '2026-11-23', description: 'A UTC calendar day.' })
  date!: string;

  @ApiProperty({ type: 'integer', description: 'Runs started on that day.' })
  runs!: number;
}

export class DashboardApprovalDto {
  @ApiProperty()
  runId!: string;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty()
  workflowName!: string;

  @ApiProperty({ description: 'The action waiting for a decision, `<provider>__<action>`.' })
  tool!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}

export class DashboardFailureDto {
  @ApiProperty()
  runId!: string;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty()
  workflowName!: string;

  @ApiProperty({ description: 'The id of the node whose step failed.' })
  step!: string;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ format: 'date-time', description: 'When the step failed.' })
  at!: string;
}

export class DashboardHeldDto {
  @ApiProperty()
  workflowId!: string;

  @ApiProperty()
  workflowName!: string;

  @ApiProperty({
    enum: RUN_HELD_BY,
    description:
      "The gate the runs wait at: `schedule`, scheduled runs written before their due time; the workflow's `debounce`, `throttle` or `concurrency`; or `share`, the organization's share of the runners while it has a backlog (docs/flow-control.md).",
  })
  heldBy!: RunHeldBy;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "The key they wait under (the setting's `key` rendered for them, empty without one); null for `schedule` and `share`.",
  })
  key!: string | null;

  @ApiProperty({ type: 'integer', description: 'Runs waiting at this gate under this key.' })
  runs!: number;

  @ApiProperty({ format: 'date-time', description: 'When the one waiting longest was started.' })
  oldestAt!: string;
}

export class DashboardTriggerDto {
  @ApiProperty()
  triggerNodeId!: string;

  @ApiProperty()
  connectionId!: string;

  @ApiProperty({ enum: SUBSCRIPTION_STATUSES })
  status!: SubscriptionStatus;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({
    enum: CONNECTION_HEALTH,
    nullable: true,
    description: "The connection's health; null when the connection is gone.",
  })
  health!: ConnectionHealth | null;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty()
  workflowName!: string;
}

export class DashboardConnectionDto {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: INTEGRATION_IDS })
  integrationId!: IntegrationId;
}

export class DashboardRunDto {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  workflowId!: string;

  @ApiProperty()
  workflowName!: string;

  @ApiProperty()
  projectId!: string;

  @ApiProperty()
  projectName!: string;

  @ApiProperty({ enum: RUN_TRIGGERS })
  trigger!: RunTrigger;

  @ApiProperty({ enum: RUN_STATUSES })
  status!: RunStatus;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

export class DashboardCountsDto {
  @ApiProperty({ type: 'integer' })
  projects!: number;

  @ApiProperty({ type: 'integer' })
  workflows!: number;

  @ApiProperty({ type: 'integer', description: 'Workflows with a live version.' })
  published!: number;

  @ApiProperty({ type: 'integer', description: 'App connections.' })
  connections!: number;

  @ApiProperty({ type: 'integer', description: 'Runs started in the seven days `activity` covers.' })
  runsThisWeek!: number;
}

export const DASHBOARD_PARTS = ['projects', 'runs', 'workflows', 'events', 'agents', 'names'] as const;
export type DashboardPart = (typeof DASHBOARD_PARTS)[number];

export class DashboardStalePartDto {
  @ApiProperty({
    enum: DASHBOARD_PARTS,
    description:
      'The service whose part is stale: `projects` (counts.projects, activity, runsThisWeek), `runs` (runs, failures), `workflows` (counts.workflows, counts.published), `events` (triggers, unhealthyConnections, counts.connections), `agents` (approvals), `names` (workflow and project names).',
  })
  part!: DashboardPart;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'When the part shown was read; null for `names` when recorded names stand in for current ones.',
  })
  asOf!: string | null;
}

export class DashboardDto {
  @ApiProperty({
    type: [DashboardActivityDayDto],
    description:
      'Runs started on each of the last seven UTC calendar days, today included: seven entries, oldest first, days without runs as 0.',
  })
  activity!: DashboardActivityDayDto[];

  @ApiProperty({
    type: [DashboardApprovalDto],
    description: 'Agent actions waiting for approval, soonest to expire first.',
  })
  approvals!: DashboardApprovalDto[];

  @ApiProperty({
    type: [DashboardFailureDto],
    description: 'Steps that failed in the last 7 days, newest first (at most 20).',
  })
  failures!: DashboardFailureDto[];

  @ApiProperty({
    type: [DashboardTriggerDto],
    description: 'Only the App event triggers whose subscription or connection is unhealthy.',
  })
  triggers!: DashboardTriggerDto[];

  @ApiProperty({
    type: [DashboardConnectionDto],
    description:
      'Extension beyond the contract: the app connections marked `unhealthy`, whether or not a trigger uses them: the app refused the connection or could not be reached the last time it was used (an MCP server that is down; docs/mcp.md). At most 100, by name.',
  })
  unhealthyConnections!: DashboardConnectionDto[];

  @ApiProperty({
    type: [DashboardRunDto],
    description: "The organization's most recent runs, newest first (at most 10).",
  })
  runs!: DashboardRunDto[];

  @ApiProperty({ type: DashboardCountsDto })
  counts!: DashboardCountsDto;

  @ApiProperty({
    type: [DashboardHeldDto],
    description:
      'Extension beyond the contract: queued runs held back by flow control (docs/flow-control.md), per workflow, gate and key, most runs first (at most 20).',
  })
  held!: DashboardHeldDto[];

  @ApiProperty({
    type: [DashboardStalePartDto],
    description:
      'Extension beyond the contract. Empty when every part is current. A service that did not answer in time is shown as it last answered this gateway, and listed here; with no earlier answer the dashboard answers 503 `service_unavailable` instead.',
  })
  stale!: DashboardStalePartDto[];
}
