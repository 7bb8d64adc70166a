import type { Diagram, DiagramIssue, Principal } from '#contracts';
import { Injectable } from '@nestjs/common';

import type { PublishCheck } from './publish-check.js';
import { WorkflowRepository } from './workflow.repository.js';

/**
 * A `workflow` node must call one of the organization's workflows (docs/workflows.md, "Call a
 * workflow"). This service owns them, so the check is one query of its own. Whether that workflow
 * is published is not checked here: it may be published later, and a run that calls it before
 * fails its step with `not_published`. A workflow may call itself; RUN_MAX_DEPTH bounds it.
 */
@Injectable()
export class WorkflowNodesCheck implements PublishCheck {
  constructor(private readonly workflows: WorkflowRepository) {}

  async check(principal: Principal, diagram: Diagram): Promise<DiagramIssue[]> {
    const nodes = diagram.nodes
      .map((node, index) => ({ node, index, workflowId: String(node.data.properties.workflowId) }))
      .filter(({ node }) => node.data.type === 'workflow');
    if (nodes.length === 0) return [];
    // Malformed ids are left out of the query by `names` and simply not found.
    const existing = await this.workflows.names(principal.organizationId, [
      ...new Set(nodes.map(({ workflowId }) => workflowId)),
    ]);
    return nodes
      .filter(({ workflowId }) => !(workflowId in existing))
      .map(({ node, index, workflowId }) => ({
        nodeId: node.id,
        path: `nodes.${index}.data.properties.workflowId`,
        message: `node "${node.id}": no workflow ${workflowId} in this organization.`,
      }));
  }
}
