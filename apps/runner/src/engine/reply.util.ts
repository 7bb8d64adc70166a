import type { RunGraph } from './run-graph.js';
import { edgeFires, type StepOutcomeView } from './step-decision.util.js';

export interface ReplyStep extends StepOutcomeView {
  nodeId: string;
  output: Readonly<Record<string, string>> | null;
}

/**
 * The run's `reply`: the text of the nodes it ended on (nodes that ran and fired no outgoing edge),
 * in start order, joined with a blank line. Nodes without text (a delay) add nothing.
 */
export function replyText(
  stepsInStartOrder: readonly ReplyStep[],
  graph: RunGraph,
  textFieldOf: (nodeId: string) => string | null,
): string {
  const texts: string[] = [];
  for (const step of stepsInStartOrder) {
    if (step.status !== 'done') continue;
    if (graph.outgoing(step.nodeId).some((edge) => edgeFires(edge, step))) continue;
    const field = textFieldOf(step.nodeId);
    const text = field === null ? '' : (step.output?.[field] ?? '');
    if (text !== '') texts.push(text);
  }
  return texts.join('\n\n');
}
