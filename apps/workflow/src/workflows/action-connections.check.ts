import { actionConnectionIssues, type Diagram, type DiagramIssue, type Principal } from '#contracts';
import { Injectable } from '@nestjs/common';

import { EventsClient } from '../peers/events.client.js';
import type { PublishCheck } from './publish-check.js';

/** Publish rule 4: every Action finds a connection for every trigger that reaches it. */
@Injectable()
export class ActionConnectionsCheck implements PublishCheck {
  constructor(private readonly events: EventsClient) {}

  async check(principal: Principal, diagram: Diagram): Promise<DiagramIssue[]> {
    if (!diagram.nodes.some((node) => node.data.type === 'action')) return [];
    return actionConnectionIssues(diagram, await this.events.connections(principal));
  }
}
