import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { IsStringRecord } from '../messaging/string-record.decorator.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';
import type { ConnectionHealth } from './connection.dto.js';
import { ACTION_REF_PATTERN, INTEGRATION_IDS, type IntegrationId } from './integrations.js';

export const SUBSCRIPTION_STATUSES = ['active', 'error', 'stopped'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** An action may run this long at most; its step waits a little longer for the answer. */
export const ACTION_DEFAULT_TIMEOUT_MS = 30_000;
export const ACTION_MAX_TIMEOUT_MS = 120_000;

/** How much longer than the action's own time limit its caller waits for the answer. */
export const ACTION_ANSWER_MARGIN_MS = 5_000;

/** An action input's own `timeoutMs` when it has a usable one, else the default, never past the limit. */
export function actionTimeoutMs(input: unknown): number {
  const asked =
    typeof input === 'object' && input !== null ? (input as { timeoutMs?: unknown }).timeoutMs : undefined;
  if (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0) return ACTION_DEFAULT_TIMEOUT_MS;
  return Math.min(Math.max(100, Math.round(asked)), ACTION_MAX_TIMEOUT_MS);
}

/** A webhook delivery's body; larger ones are refused with 413 at the gateway. */
export const HOOK_BODY_MAX_BYTES = 256 * 1024;

/** One App event trigger of a live version: what to subscribe it to. */
export class EventTriggerBinding {
  @IsString()
  @MaxLength(DIAGRAM_ID_MAX_LENGTH)
  triggerNodeId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  connectionId!: string;

  /** `<provider>/<trigger-name>`. */
  @IsString()
  @MaxLength(200)
  trigger!: string;

  /** Payload path → expected value; absent matches every event. */
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}

/**
 * `EventsSubjects.activate`: the workflow's App event triggers become exactly these (publish of an
 * unpaused workflow, resume). Refused whole with plan_limit_reached or subscription_failed.
 */
export class ActivateTriggersRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;

  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => EventTriggerBinding)
  triggers!: EventTriggerBinding[];
}

export class WorkflowScopedRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId!: string;
}

/** `EventsSubjects.subscriptionsDeactivate`: pause stops the triggers; a purged workflow's are removed. */
export class DeactivateTriggersRequest extends WorkflowScopedRequest {
  @IsOptional()
  @IsBoolean()
  deleted?: boolean;
}

/** `EventsSubjects.actionsExecute`: one attempt of an app action, with the connection already chosen. */
export class ExecuteActionRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  connectionId!: string;

  /** `<provider>__<action>`, or `mcp__<tool>` for a tool of an MCP server's connection. */
  @IsString()
  @MaxLength(200)
  @Matches(ACTION_REF_PATTERN, { message: 'action must be <provider>__<action> or mcp__<tool>' })
  action!: string;

  @IsObject()
  input!: Record<string, unknown>;

  /** `<runId>:<nodeId>:<attempt>`: sent to the app (as `Idempotency-Key` over HTTP) with every attempt. */
  @IsString()
  @MinLength(1)
  @MaxLength(400)
  idempotencyKey!: string;

  @IsInt()
  @Min(100)
  @Max(ACTION_MAX_TIMEOUT_MS)
  timeoutMs!: number;

  /**
   * The run whose step (or agent) calls the action: a cancel of that run aborts the call
   * (`RunnerSubjects.runCancelled`). Absent for a call that belongs to no run.
   */
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  runId?: string;
}

/** What an action did: `status` (the HTTP status for HTTP-based actions) and its result, as JSON. */
export interface ActionResult {
  status: string;
  result: unknown;
}

/** A webhook delivery as the gateway received it, for `EventsSubjects.hooksReceive`. */
export class ReceiveHookRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  connectionId!: string;

  /** The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (and only those). */
  @IsStringRecord(10)
  headers!: Record<string, string>;

  /** The body exactly as it arrived: the signature covers these bytes. */
  @IsString()
  @MaxLength(HOOK_BODY_MAX_BYTES)
  body!: string;
}

export class ListWorkflowEventsRequest extends WorkflowScopedRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => PageQueryDto)
  query!: PageQueryDto;
}

export class ReplayEventRequest extends WorkflowScopedRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  eventId!: string;

  @IsString()
  @MaxLength(DIAGRAM_ID_MAX_LENGTH)
  triggerNodeId!: string;

  /**
   * Names the replay's job (`replay:<replayId>`), so the same replay sent twice within JetStream's
   * duplicate window is queued once: a bulk replay resumed after a crash sends its own id for each
   * event. A new id when absent.
   */
  @IsOptional()
  @IsString()
  @MaxLength(2 * MESSAGE_ID_MAX_LENGTH)
  replayId?: string;
}

/** `npm run admin -- connection create`. */
export class AdminConnectionCreate {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId!: string;

  @IsIn(INTEGRATION_IDS)
  integrationId!: IntegrationId;

  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
}

export interface AdminConnectionCreated {
  connectionId: string;
  /** The `whsec_…` secret deliveries to `/hooks/{id}` of a `webhook` connection are signed with. */
  secret?: string;
  /** The `whsec_…` secret `webhook__send` of a `webhook` connection signs with. */
  sendingSecret?: string;
}

/** `npm run admin -- connection rotate-sending-secret`. */
export class AdminConnectionRotate {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  organizationId!: string;

  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  connectionId!: string;
}

/** An App event trigger whose subscription or connection is unhealthy (the dashboard's `triggers`). */
export interface UnhealthyTrigger {
  triggerNodeId: string;
  connectionId: string;
  status: SubscriptionStatus;
  error: string | null;
  /** The connection's health; null when the connection is gone. */
  health: ConnectionHealth | null;
  workflowId: string;
}

/**
 * A connection its app refused or could not be reached at, last time it was used (the dashboard's
 * `unhealthyConnections`): an MCP server that is down, a revoked Slack URL.
 */
export interface UnhealthyConnection {
  id: string;
  name: string;
  integrationId: IntegrationId;
}

/** A JetStream job of the events service: fan an event out to its listeners, or replay it for one trigger. */
export interface EventJob {
  eventId: string;
  /** Only for a replay: the one trigger to deliver to. */
  workflowId?: string;
  triggerNodeId?: string;
  /** Tells replays apart, so a second replay of the same trigger is not dropped as a duplicate. */
  replayId?: string;
  /** Numbers the sweeper's re-queueing of an event whose fan-out did not finish. */
  sweep?: number;
}
