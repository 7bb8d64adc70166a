import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import type { Diagram } from '../workflows/diagram.js';
import {
  DIAGRAM_NOTIFICATIONS_MAX,
  NOTIFIED_RUN_STATUSES,
  type NotifiedRunStatus,
  type RunNotificationSetting,
} from './notification-limits.js';

const isNotified = (status: unknown): status is NotifiedRunStatus =>
  (NOTIFIED_RUN_STATUSES as readonly unknown[]).includes(status);

/**
 * A diagram's `settings.notifications`, read as far as they make sense: validated at publish, but a
 * draft run's diagram is not, so anything else is left out rather than trusted (and past
 * DIAGRAM_NOTIFICATIONS_MAX, cut), which keeps a RunEndedRequest built from them valid.
 */
export function runNotificationsOf(diagram: Diagram): RunNotificationSetting[] {
  const listed = (diagram.settings as { notifications?: unknown } | null | undefined)?.notifications;
  if (!Array.isArray(listed)) return [];
  return listed
    .flatMap((entry: unknown) => {
      const { endpointId, statuses } = (entry ?? {}) as { endpointId?: unknown; statuses?: unknown };
      if (typeof endpointId !== 'string' || endpointId.length > MESSAGE_ID_MAX_LENGTH) return [];
      if (!Array.isArray(statuses)) return [];
      const notified = [...new Set(statuses.filter(isNotified))];
      return notified.length > 0 ? [{ endpointId, statuses: notified }] : [];
    })
    .slice(0, DIAGRAM_NOTIFICATIONS_MAX);
}
