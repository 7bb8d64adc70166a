import type { Page } from '#common';
import type {
  ListNotificationDeliveriesRequest,
  NotificationDeliveryDto,
  Principal,
  RunEndedReply,
  RunEndedRequest,
} from '#contracts';
import { isId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { notificationBody } from './notification-body.js';
import { NotificationDeliveryRepository } from './notification-delivery.repository.js';
import { NotificationDispatcher } from './notification-dispatcher.service.js';
import { NotificationEndpointsService } from './notification-endpoints.service.js';

/** Runs that ended, and what their endpoints were told. */
@Injectable()
export class RunNotificationsService {
  constructor(
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly endpoints: NotificationEndpointsService,
    private readonly dispatcher: NotificationDispatcher,
  ) {}

  /**
   * Records a delivery for each endpoint that asked for the run's status, once per endpoint and run
   * (the runner sends again until it hears this answer), then has them sent. Endpoints deleted since
   * the workflow was published, or of another organization, are skipped.
   */
  async runEnded(principal: Principal, run: RunEndedRequest): Promise<RunEndedReply> {
    const endpointIds = [
      ...new Set(
        run.notifications
          .filter((entry) => entry.statuses.includes(run.status))
          .map((entry) => entry.endpointId)
          .filter(isId),
      ),
    ];
    const recorded = await this.deliveries.record({
      organizationId: principal.organizationId,
      runId: run.runId,
      workflowId: run.workflowId,
      runStatus: run.status,
      body: notificationBody(run),
      endpointIds,
    });
    if (recorded > 0) this.dispatcher.kick();
    return { recorded };
  }

  async listDeliveries(
    principal: Principal,
    { id, query }: ListNotificationDeliveriesRequest,
  ): Promise<Page<NotificationDeliveryDto>> {
    const endpoint = await this.endpoints.find(principal, id);
    return this.deliveries.list(endpoint.id, query);
  }
}
