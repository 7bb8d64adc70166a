import {
  AGENT_GRANTS_MAX,
  type Diagram,
  type DiagramIssue,
  MESSAGE_ID_MAX_LENGTH,
  type Principal,
} from '#contracts';
import { Injectable } from '@nestjs/common';

import { AgentsClient } from '../peers/agents.client.js';
import type { PublishCheck } from './publish-check.js';

/** Publish rule 5: an Agent node must pick one of the organization's agents. */
@Injectable()
export class AgentNodesCheck implements PublishCheck {
  constructor(private readonly agents: AgentsClient) {}

  async check(principal: Principal, diagram: Diagram): Promise<DiagramIssue[]> {
    const nodes = diagram.nodes
      .map((node, index) => ({ node, index }))
      .filter(({ node }) => node.data.type === 'agent');
    if (nodes.length === 0) return [];
    // An id too long to be one is simply not found, without asking.
    const named = [...new Set(nodes.map(({ node }) => String(node.data.properties.agentId)))].filter(
      (id) => id.length <= MESSAGE_ID_MAX_LENGTH,
    );
    const existing = new Set<string>();
    // Asked in slices of the request's bound: a diagram may have more agent nodes than one request takes.
    for (let start = 0; start < named.length; start += AGENT_GRANTS_MAX) {
      const slice = named.slice(start, start + AGENT_GRANTS_MAX);
      for (const id of await this.agents.existing(principal, slice)) existing.add(id);
    }
    return nodes
      .filter(({ node }) => !existing.has(String(node.data.properties.agentId)))
      .map(({ node, index }) => ({
        nodeId: node.id,
        path: `nodes.${index}.data.properties.agentId`,
        message: `No agent ${String(node.data.properties.agentId)} in this organization.`,
      }));
  }
}
