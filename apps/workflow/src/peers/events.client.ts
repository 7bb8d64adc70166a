import {
  type ConnectionSummary,
  type Diagram,
  eventTriggerBindings,
  EventsSubjects,
  type Principal,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

/** App connections and event subscriptions belong to the events service. */
@Injectable()
export class EventsClient {
  constructor(private readonly rpc: RpcClient) {}

  /** The workflow's App event triggers become exactly the diagram's (none for a diagram without any). */
  async subscribe(principal: Principal, workflowId: string, diagram: Diagram): Promise<void> {
    await this.rpc.request(EventsSubjects.subscriptionsActivate, principal, {
      workflowId,
      triggers: eventTriggerBindings(diagram),
    });
  }

  async unsubscribe(principal: Principal, workflowId: string, deleted: boolean): Promise<void> {
    await this.rpc.request(EventsSubjects.subscriptionsDeactivate, principal, { workflowId, deleted });
  }

  async connections(principal: Principal): Promise<ConnectionSummary[]> {
    return (await this.rpc.request(EventsSubjects.connectionsSummary, principal, {})).connections;
  }

  /** The ids among `ids` (at most DIAGRAM_NOTIFICATIONS_MAX) of the organization's notification endpoints. */
  async notificationEndpoints(principal: Principal, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set(
      (await this.rpc.request(EventsSubjects.notificationEndpointsExisting, principal, { ids })).ids,
    );
  }
}
