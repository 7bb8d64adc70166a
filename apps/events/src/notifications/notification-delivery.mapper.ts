import type {
  NotificationAttemptDto,
  NotificationDeliveryDto,
  NotificationDeliveryStatus,
  NotifiedRunStatus,
} from '#contracts';
import type { Selectable } from 'kysely';

import type { EventsNotificationDeliveries } from '../events.tables.js';

/** The deliveries one run ending makes: one per endpoint, all with the same body. */
export interface NewDeliveries {
  organizationId: string;
  runId: string;
  workflowId: string;
  runStatus: NotifiedRunStatus;
  body: string;
  endpointIds: string[];
}

/** A delivery claimed for an attempt: `claim` says which attempt may record its outcome. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  organizationId: string;
  body: string;
  /** This attempt's number, counted when it was claimed. */
  attempt: number;
  claim: string;
}

/** What an attempt got, and what becomes of the delivery. */
export interface AttemptRecord {
  status: NotificationDeliveryStatus;
  outcome: NotificationAttemptDto;
  nextAttemptAt: Date | null;
}

export const NOTIFICATION_DELIVERY_COLUMNS = [
  'id',
  'endpoint_id',
  'run_id',
  'workflow_id',
  'run_status',
  'status',
  'attempts',
  'outcomes',
  'last_response_status',
  'last_error',
  'next_attempt_at',
  'created_at',
  'updated_at',
] as const;

type DeliveryRow = Pick<
  Selectable<EventsNotificationDeliveries>,
  (typeof NOTIFICATION_DELIVERY_COLUMNS)[number]
>;

export const toNotificationDeliveryDto = (row: DeliveryRow): NotificationDeliveryDto => ({
  id: row.id,
  endpointId: row.endpoint_id,
  runId: row.run_id,
  workflowId: row.workflow_id,
  runStatus: row.run_status,
  status: row.status,
  attempts: row.attempts,
  lastResponseStatus: row.last_response_status,
  lastError: row.last_error,
  nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
  outcomes: row.outcomes,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
