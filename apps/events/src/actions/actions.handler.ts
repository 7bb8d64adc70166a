import { EventsSubjects, type ExecuteActionRequest, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { ActionsService } from './actions.service.js';

@Controller()
export class ActionsHandler {
  constructor(private readonly actions: ActionsService) {}

  @Handles(EventsSubjects.actionsExecute)
  execute(request: ExecuteActionRequest, principal: Principal) {
    return this.actions.execute(principal, request);
  }
}
