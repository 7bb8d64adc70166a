import {
  EventsSubjects,
  type ListWorkflowEventsRequest,
  type Principal,
  type ReplayCandidatesRequest,
  type ReplayEventRequest,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { EventsService } from './events.service.js';

@Controller()
export class EventsHandler {
  constructor(private readonly events: EventsService) {}

  @Handles(EventsSubjects.eventsList)
  list(request: ListWorkflowEventsRequest, principal: Principal) {
    return this.events.list(principal, request);
  }

  @Handles(EventsSubjects.eventsReplayCandidates)
  replayCandidates(request: ReplayCandidatesRequest, principal: Principal) {
    return this.events.replayCandidates(principal, request);
  }

  @Handles(EventsSubjects.eventsReplay)
  replay(request: ReplayEventRequest, principal: Principal) {
    return this.events.replay(principal, request);
  }
}
