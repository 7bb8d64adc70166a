import { DomainException } from '#common';
import type { Diagram, DiagramNode } from '#contracts';

export interface TriggerChoice {
  id: string;
  label: string | null;
}

function triggersOf(diagram: Diagram): DiagramNode[] {
  return diagram.nodes.filter((node) => node.data.type === 'trigger');
}

function choiceOf(node: DiagramNode): TriggerChoice {
  const label = node.data.properties?.label;
  return { id: node.id, label: typeof label === 'string' ? label : null };
}

/**
 * The Trigger node an error workflow's run starts from: the only one, or else the first `manual`
 * one in the diagram, so a workflow with a schedule or an app event trigger can still serve as one.
 */
export function errorWorkflowTrigger(diagram: Diagram): DiagramNode {
  const triggers = triggersOf(diagram);
  const [only, ...others] = triggers;
  if (only && others.length === 0) return only;
  const manual = triggers.find((node) => node.data.properties?.kind === 'manual');
  if (manual) return manual;
  throw new DomainException(
    'trigger_required',
    `This workflow has ${triggers.length} Trigger nodes and none of kind manual; as an error workflow it starts from its only trigger or its first manual one.`,
    { triggers: triggers.map(choiceOf) },
  );
}

/**
 * The Trigger node a run starts from: the one named, or the only one. Naming none of several, or a
 * node that is not a trigger, answers `trigger_required` with the triggers to choose from.
 */
export function chooseTrigger(diagram: Diagram, triggerNodeId: string | undefined): DiagramNode {
  const triggers = triggersOf(diagram);
  const details = { triggers: triggers.map(choiceOf) };
  if (triggerNodeId === undefined) {
    const [only, ...others] = triggers;
    if (only && others.length === 0) return only;
    throw new DomainException(
      'trigger_required',
      `This workflow has ${triggers.length} Trigger nodes; choose one with triggerNodeId.`,
      details,
    );
  }
  const chosen = triggers.find((node) => node.id === triggerNodeId);
  if (!chosen) {
    throw new DomainException(
      'trigger_required',
      `No Trigger node has id "${triggerNodeId}"; choose one of the workflow's triggers.`,
      details,
    );
  }
  return chosen;
}
