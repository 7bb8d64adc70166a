import { EventsSubjects, type ReceiveHookRequest } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { HooksService } from './hooks.service.js';

@Controller()
export class HooksHandler {
  constructor(private readonly hooks: HooksService) {}

  @Handles(EventsSubjects.hooksReceive)
  receive(request: ReceiveHookRequest) {
    return this.hooks.receive(request);
  }
}
