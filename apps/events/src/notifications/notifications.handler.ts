import {
  type CreateNotificationEndpointDto,
  EventsSubjects,
  type IdRequest,
  type ListNotificationDeliveriesRequest,
  type NotificationEndpointIdsRequest,
  type PageQueryDto,
  type Principal,
  type RunEndedRequest,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { NotificationEndpointsService } from './notification-endpoints.service.js';
import { RunNotificationsService } from './run-notifications.service.js';

@Controller()
export class NotificationsHandler {
  constructor(
    private readonly endpoints: NotificationEndpointsService,
    private readonly notifications: RunNotificationsService,
  ) {}

  @Handles(EventsSubjects.notificationEndpointsCreate)
  create(input: CreateNotificationEndpointDto, principal: Principal) {
    return this.endpoints.create(principal, input);
  }

  @Handles(EventsSubjects.notificationEndpointsList)
  list(query: PageQueryDto, principal: Principal) {
    return this.endpoints.list(principal, query);
  }

  @Handles(EventsSubjects.notificationEndpointsGet)
  get({ id }: IdRequest, principal: Principal) {
    return this.endpoints.get(principal, id);
  }

  @Handles(EventsSubjects.notificationEndpointsDelete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.endpoints.delete(principal, id);
  }

  @Handles(EventsSubjects.notificationEndpointsRotateSecret)
  rotateSecret({ id }: IdRequest, principal: Principal) {
    return this.endpoints.rotateSecret(principal, id);
  }

  @Handles(EventsSubjects.notificationEndpointsExisting)
  async existing({ ids }: NotificationEndpointIdsRequest, principal: Principal) {
    return { ids: await this.endpoints.existing(principal, ids) };
  }

  @Handles(EventsSubjects.notificationDeliveriesList)
  deliveries(request: ListNotificationDeliveriesRequest, principal: Principal) {
    return this.notifications.listDeliveries(principal, request);
  }

  @Handles(EventsSubjects.notificationsRunEnded)
  runEnded(run: RunEndedRequest, principal: Principal) {
    return this.notifications.runEnded(principal, run);
  }
}
