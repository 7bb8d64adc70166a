import {
  type ActivateTriggersRequest,
  type DeactivateTriggersRequest,
  EventsSubjects,
  type Principal,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { SubscriptionsService } from './subscriptions.service.js';

@Controller()
export class SubscriptionsHandler {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Handles(EventsSubjects.subscriptionsActivate)
  activate(request: ActivateTriggersRequest, principal: Principal) {
    return this.subscriptions.activate(principal, request);
  }

  @Handles(EventsSubjects.subscriptionsDeactivate)
  deactivate({ workflowId, deleted }: DeactivateTriggersRequest, principal: Principal) {
    return this.subscriptions.deactivate(principal, workflowId, deleted ?? false);
  }

  @Handles(EventsSubjects.overview)
  overview(_request: object, principal: Principal) {
    return this.subscriptions.overview(principal);
  }
}
