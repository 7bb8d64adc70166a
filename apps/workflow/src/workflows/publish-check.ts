import type { Diagram, DiagramIssue, Principal } from '#contracts';

/**
 * A publish rule that needs the organization's data, which the pure `validateDiagram` cannot see:
 * "an Agent node must pick one of the organization's agents" (publish rule 5) and "an Action that
 * names no connection must find one" (rule 4). Their issues join the diagram's in one
 * invalid_workflow answer; each is listed in `PUBLISH_CHECKS` in `workflow.module.ts`.
 */
export interface PublishCheck {
  check(principal: Principal, diagram: Diagram, published: PublishedWorkflow): Promise<DiagramIssue[]>;
}

/** The workflow whose draft is being published. */
export interface PublishedWorkflow {
  id: string;
}

export const PUBLISH_CHECKS = Symbol('PUBLISH_CHECKS');
