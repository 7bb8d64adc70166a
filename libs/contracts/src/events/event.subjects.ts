import type { Page } from '#common';

import { type AuditListReply, AuditListRequest } from '../audit/audit.messages.js';
import type { DeletedDto } from '../common/deleted.dto.js';
import { PageQueryDto } from '../common/page.dto.js';
import type { EventsOverview } from '../dashboard/overview.messages.js';
import { EmptyRequest, IdAndBodyOf, IdRequest } from '../messaging/common-requests.js';
import { jetStream, returns, rpc, systemRpc } from '../messaging/subject-catalog.js';
import type { AppEventDto } from './app-event.dto.js';
import {
  type ConnectionDto,
  CreateConnectionDto,
  type CreatedConnectionDto,
  type SendingSecretDto,
  UpdateConnectionDto,
} from './connection.dto.js';
import {
  type ActionResult,
  ActivateTriggersRequest,
  AdminConnectionCreate,
  AdminConnectionRotate,
  DeactivateTriggersRequest,
  type AdminConnectionCreated,
  ExecuteActionRequest,
  ListWorkflowEventsRequest,
  ReceiveHookRequest,
  ReplayEventRequest,
} from './event.messages.js';
import type { ConnectionSummary } from './integrations.js';
import {
  McpServerToolsRequest,
  type McpServerToolsReply,
  type McpServerToolsDto,
} from './mcp-server-tools.dto.js';
import type { NotificationDeliveryDto } from '../notifications/notification-delivery.dto.js';
import {
  type CreatedNotificationEndpointDto,
  CreateNotificationEndpointDto,
  type NotificationEndpointDto,
  type NotificationSecretDto,
} from '../notifications/notification-endpoint.dto.js';
import {
  ListNotificationDeliveriesRequest,
  NotificationEndpointIdsRequest,
  RunEndedRequest,
  type RunEndedReply,
} from '../notifications/notification.messages.js';
import { type ReplayCandidatesReply, ReplayCandidatesRequest } from './replay-candidates.request.js';

export const EventsSubjects = {
  /** The browser routes under /app/connections (sessions only; the gateway refuses keys). */
  connectionsList: rpc('events.connections.list', PageQueryDto, {
    callers: ['gateway', 'agent'],
    reply: returns<Page<ConnectionDto>>(),
  }),
  connectionsCreate: rpc('events.connections.create', CreateConnectionDto, {
    callers: ['gateway'],
    reply: returns<CreatedConnectionDto>(),
  }),
  /** Owners and admins: where an `http` connection's headers may go. */
  connectionsUpdate: rpc('events.connections.update', IdAndBodyOf(UpdateConnectionDto), {
    callers: ['gateway'],
    reply: returns<ConnectionDto>(),
  }),
  /** Owners and admins: a new `webhook__send` secret for a webhook connection, shown once. */
  connectionsRotateSendingSecret: rpc('events.connections.rotate-sending-secret', IdRequest, {
    callers: ['gateway'],
    reply: returns<SendingSecretDto>(),
  }),
  /** Owners and admins. Stops the connection's subscriptions; their triggers report `dead` from then on. */
  connectionsDelete: rpc('events.connections.delete', IdRequest, {
    callers: ['gateway'],
    reply: returns<DeletedDto>(),
  }),
  /** Every connection of the organization, without credentials: publish rule 4 and the action step. */
  connectionsSummary: rpc('events.connections.summary', EmptyRequest, {
    callers: ['workflow', 'runner', 'agent'],
    reply: returns<{ connections: ConnectionSummary[] }>(),
  }),
  /**
   * The tool lists MCP connections keep (docs/mcp.md): an agent's grant check and its tools, and the
   * browser's `GET /app/connections/{id}/tools`.
   */
  mcpTools: rpc('events.mcp.tools', McpServerToolsRequest, {
    callers: ['gateway', 'agent'],
    reply: returns<McpServerToolsReply>(),
  }),
  /** `POST /app/connections/{id}/refresh-tools`: asks the MCP server for its tools now and keeps them. */
  mcpToolsRefresh: rpc('events.mcp.refresh-tools', IdRequest, {
    callers: ['gateway'],
    reply: returns<McpServerToolsDto>(),
  }),
  adminConnectionCreate: systemRpc('events.admin.connection.create', AdminConnectionCreate, {
    callers: ['admin'],
    reply: returns<AdminConnectionCreated>(),
  }),
  adminConnectionRotateSendingSecret: systemRpc(
    'events.admin.connection.rotate-sending-secret',
    AdminConnectionRotate,
    { callers: ['admin'], reply: returns<SendingSecretDto>() },
  ),

  /** A delivery to `POST /hooks/{connectionId}`: verified, stored, then answered. */
  hooksReceive: systemRpc('events.hooks.receive', ReceiveHookRequest, {
    callers: ['gateway'],
    reply: returns<{ received: true }>(),
  }),

  /** Publish and resume: the workflow's App event triggers become exactly the ones sent. */
  subscriptionsActivate: rpc('events.subscriptions.activate', ActivateTriggersRequest, {
    callers: ['workflow'],
    reply: returns<{ active: number }>(),
  }),
  /** Pause (triggers stopped: events reaching them are `no_listener`) and purge (triggers removed). */
  subscriptionsDeactivate: rpc('events.subscriptions.deactivate', DeactivateTriggersRequest, {
    callers: ['workflow'],
    reply: returns<{ stopped: number }>(),
  }),

  /** One attempt of an app action (the runner's `action` step; the agent's tools later). */
  actionsExecute: rpc('events.actions.execute', ExecuteActionRequest, {
    callers: ['runner', 'agent'],
    reply: returns<ActionResult>(),
    working: true,
  }),

  /** A workflow's app events, newest first, with the outcome for each of its triggers. */
  eventsList: rpc('events.events.list', ListWorkflowEventsRequest, {
    callers: ['gateway'],
    reply: returns<Page<AppEventDto>>(),
  }),
  /** One event for one trigger: the gateway's route, and the runner's bulk replay for each event. */
  eventsReplay: rpc('events.events.replay', ReplayEventRequest, {
    callers: ['gateway', 'runner'],
    reply: returns<{ queued: true }>(),
  }),
  /** The ids of the events a bulk replay matches, newest first, a page at a time (the runner's operations). */
  eventsReplayCandidates: rpc('events.events.replay-candidates', ReplayCandidatesRequest, {
    callers: ['runner'],
    reply: returns<ReplayCandidatesReply>(),
  }),

  /** Run notifications (docs/notifications.md): the endpoints under /api/v1/notification-endpoints. */
  notificationEndpointsCreate: rpc('events.notifications.endpoints.create', CreateNotificationEndpointDto, {
    callers: ['gateway'],
    reply: returns<CreatedNotificationEndpointDto>(),
  }),
  notificationEndpointsList: rpc('events.notifications.endpoints.list', PageQueryDto, {
    callers: ['gateway'],
    reply: returns<Page<NotificationEndpointDto>>(),
  }),
  notificationEndpointsGet: rpc('events.notifications.endpoints.get', IdRequest, {
    callers: ['gateway'],
    reply: returns<NotificationEndpointDto>(),
  }),
  /** Its pending deliveries are dropped with it. */
  notificationEndpointsDelete: rpc('events.notifications.endpoints.delete', IdRequest, {
    callers: ['gateway'],
    reply: returns<DeletedDto>(),
  }),
  notificationEndpointsRotateSecret: rpc('events.notifications.endpoints.rotate-secret', IdRequest, {
    callers: ['gateway'],
    reply: returns<NotificationSecretDto>(),
  }),
  /** Which of these endpoints the caller's organization has: a publish check of `settings.notifications`. */
  notificationEndpointsExisting: rpc(
    'events.notifications.endpoints.existing',
    NotificationEndpointIdsRequest,
    {
      callers: ['workflow'],
      reply: returns<{ ids: string[] }>(),
    },
  ),
  notificationDeliveriesList: rpc('events.notifications.deliveries.list', ListNotificationDeliveriesRequest, {
    callers: ['gateway'],
    reply: returns<Page<NotificationDeliveryDto>>(),
  }),
  /**
   * A run whose diagram names notification endpoints ended (the runner's run-endings relay): the
   * deliveries are recorded, once per endpoint and run, before the answer.
   */
  notificationsRunEnded: rpc('events.notifications.run-ended', RunEndedRequest, {
    callers: ['runner'],
    reply: returns<RunEndedReply>(),
  }),

  /**
   * For the dashboard and billing: connections, active subscriptions, and the App event triggers
   * whose subscription or connection is unhealthy.
   */
  overview: rpc('events.overview.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<EventsOverview>(),
  }),
  /** A page of this service's audit entries for the gateway's `GET /api/v1/audit`, which merges them. */
  auditList: rpc('events.audit.list', AuditListRequest, {
    callers: ['gateway'],
    reply: returns<AuditListReply>(),
  }),
} as const;

/** Events to fan out and replays to deliver: stored first, then worked through by the events service. */
export const EventJobsStream = jetStream('EVENTS', {
  subject: 'events.jobs.deliver',
  consumer: 'events',
  publishers: ['events'],
});
