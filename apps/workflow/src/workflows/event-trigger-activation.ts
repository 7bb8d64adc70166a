import type { Principal } from '#contracts';
import { Injectable } from '@nestjs/common';

import { EventsClient } from '../peers/events.client.js';
import { type ActivatedWorkflow, TriggerActivation } from './trigger-activation.js';

/**
 * App event triggers subscribe with the events service (publish rules 2 and 3, resume rules): it
 * answers plan_limit_reached or subscription_failed and then changes nothing.
 */
@Injectable()
export class EventTriggerActivation extends TriggerActivation {
  constructor(private readonly events: EventsClient) {
    super();
  }

  activate(principal: Principal, { workflowId, diagram }: ActivatedWorkflow): Promise<void> {
    return this.events.subscribe(principal, workflowId, diagram);
  }

  deactivate(principal: Principal, workflowId: string, { deleted = false } = {}): Promise<void> {
    return this.events.unsubscribe(principal, workflowId, deleted);
  }
}
