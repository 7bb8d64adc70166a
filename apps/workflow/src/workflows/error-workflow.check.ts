import { type Diagram, type DiagramIssue, errorWorkflowIdOf, type Principal } from '#contracts';
import { Injectable } from '@nestjs/common';

import type { PublishCheck, PublishedWorkflow } from './publish-check.js';
import { WorkflowRepository } from './workflow.repository.js';

/**
 * `settings.errorWorkflowId` names another workflow of the organization (docs/workflows.md, "Error
 * workflows"). Whether it is published or paused is not checked here: that may change before a run
 * fails, so the runner finds out when it starts it and records on the failed run why it could not.
 */
@Injectable()
export class ErrorWorkflowCheck implements PublishCheck {
  constructor(private readonly workflows: WorkflowRepository) {}

  async check(principal: Principal, diagram: Diagram, published: PublishedWorkflow): Promise<DiagramIssue[]> {
    const id = errorWorkflowIdOf(diagram);
    if (id === null) return [];
    const path = 'settings.errorWorkflowId';
    if (id === published.id) {
      return [
        {
          path,
          message:
            'settings.errorWorkflowId names this workflow itself; a failed run cannot be handled by another run of the same workflow. Name another workflow.',
        },
      ];
    }
    const found = await this.workflows.names(principal.organizationId, [id]);
    if (found[id] !== undefined) return [];
    return [{ path, message: `settings.errorWorkflowId: no workflow ${id} in this organization.` }];
  }
}
