import type { RunStatus } from '../runs/run-status.js';

/** The final run statuses a workflow may be notified of (`settings.notifications[].statuses`). */
export const NOTIFIED_RUN_STATUSES = [
  'complete',
  'errored',
  'terminated',
] as const satisfies readonly RunStatus[];
export type NotifiedRunStatus = (typeof NOTIFIED_RUN_STATUSES)[number];

/** Endpoints one diagram's `settings.notifications` may name. */
export const DIAGRAM_NOTIFICATIONS_MAX = 10;

/** Notification endpoints one organization may have. */
export const NOTIFICATION_ENDPOINTS_MAX = 50;

export const NOTIFICATION_URL_MAX_LENGTH = 2048;

/** A run's `reply` and `error` are cut to this many characters in a notification's body. */
export const NOTIFICATION_TEXT_MAX_CHARS = 4096;

/** Deliveries are kept this long after they were created, then deleted. */
export const NOTIFICATION_RETENTION_DAYS = 30;

export const NOTIFICATION_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type NotificationDeliveryStatus = (typeof NOTIFICATION_DELIVERY_STATUSES)[number];

/** One entry of a diagram's `settings.notifications`. */
export interface RunNotificationSetting {
  endpointId: string;
  statuses: NotifiedRunStatus[];
}
