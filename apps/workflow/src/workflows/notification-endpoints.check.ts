import { type Diagram, type DiagramIssue, type Principal, type RunNotificationSetting } from '#contracts';
import { Injectable } from '@nestjs/common';

import { EventsClient } from '../peers/events.client.js';
import type { PublishCheck } from './publish-check.js';

/**
 * `settings.notifications`: each endpoint must be one of the organization's, and named once (all its
 * statuses in one entry). Their shape and number are the settings schema's, checked before this.
 */
@Injectable()
export class NotificationEndpointsCheck implements PublishCheck {
  constructor(private readonly events: EventsClient) {}

  async check(principal: Principal, diagram: Diagram): Promise<DiagramIssue[]> {
    const listed = (diagram.settings as { notifications?: RunNotificationSetting[] } | undefined)
      ?.notifications;
    if (!listed || listed.length === 0) return [];
    const named = listed.map((entry) => entry.endpointId);
    const existing = await this.events.notificationEndpoints(principal, [...new Set(named)]);
    const seen = new Set<string>();
    return named.flatMap((id, index): DiagramIssue[] => {
      const path = `settings.notifications.${index}.endpointId`;
      if (seen.has(id)) {
        return [
          { path, message: `notification endpoint ${id} is named twice; list its statuses in one entry` },
        ];
      }
      seen.add(id);
      return existing.has(id)
        ? []
        : [{ path, message: `No notification endpoint ${id} in this organization.` }];
    });
  }
}
