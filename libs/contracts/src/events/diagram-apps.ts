import type { Diagram, DiagramNode } from '../workflows/diagram.js';
import type { DiagramIssue } from '../workflows/validate-diagram.js';
import type { EventTriggerBinding } from './event.messages.js';
import {
  type ConnectionSummary,
  hasAction,
  parseActionRef,
  resolveActionConnection,
} from './integrations.js';

const isEventTrigger = (node: DiagramNode) =>
  node.data.type === 'trigger' && node.data.properties.kind === 'event';

/** The App event triggers of a diagram, as the events service subscribes them (publish rule 2). */
export function eventTriggerBindings(diagram: Diagram): EventTriggerBinding[] {
  return diagram.nodes.filter(isEventTrigger).map((node) => {
    const { connectionId, trigger, filter } = node.data.properties;
    return {
      triggerNodeId: node.id,
      connectionId: String(connectionId ?? ''),
      trigger: String(trigger ?? ''),
      ...(typeof filter === 'object' && filter !== null && !Array.isArray(filter)
        ? { filter: filter as Record<string, unknown> }
        : {}),
    };
  });
}

/** Every node reachable from `start` along the edges (start included). */
function reachableFrom(diagram: Diagram, start: string): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const edge of diagram.edges) {
      if (edge.source === next && !seen.has(edge.target)) {
        seen.add(edge.target);
        queue.push(edge.target);
      }
    }
  }
  return seen;
}

/**
 * Publish rule 4: every Action must have a connection to use for every trigger that reaches it: the
 * one it names, else the trigger's own when it is the same app's, else the app's only connection.
 * `connections` are the organization's. One issue per action and reason, naming the node.
 */
export function actionConnectionIssues(
  diagram: Diagram,
  connections: readonly ConnectionSummary[],
): DiagramIssue[] {
  const triggers = diagram.nodes.filter((node) => node.data.type === 'trigger');
  const reach = new Map(triggers.map((trigger) => [trigger.id, reachableFrom(diagram, trigger.id)]));
  const issues: DiagramIssue[] = [];
  diagram.nodes.forEach((node, index) => {
    if (node.data.type !== 'action') return;
    const { action, connectionId } = node.data.properties;
    const ref = typeof action === 'string' ? parseActionRef(action) : null;
    const path = `nodes.${index}.data.properties`;
    if (!ref || !hasAction(ref.provider, ref.action)) {
      issues.push({
        nodeId: node.id,
        path: `${path}.action`,
        message:
          ref?.provider === 'mcp'
            ? `${String(action)} is an MCP server's tool: grant it to an agent and call it from an Agent step (docs/mcp.md).`
            : `No app has the action ${String(action)}.`,
      });
      return;
    }
    const named = typeof connectionId === 'string' && connectionId !== '' ? connectionId : undefined;
    if (named) {
      if (!resolveActionConnection(ref.provider, named, undefined, connections)) {
        issues.push({
          nodeId: node.id,
          path: `${path}.connectionId`,
          message: `The connection ${named} is not a ${ref.provider} connection of this organization.`,
        });
      }
      return;
    }
    const reachedBy = triggers.filter((trigger) => reach.get(trigger.id)?.has(node.id));
    const unresolved = reachedBy.filter((trigger) => {
      const own = trigger.data.properties.connectionId;
      const triggerConnection = isEventTrigger(trigger)
        ? connections.find((connection) => connection.id === own)
        : undefined;
      return !resolveActionConnection(ref.provider, undefined, triggerConnection, connections);
    });
    if (unresolved.length > 0) {
      issues.push({
        nodeId: node.id,
        path: `${path}.connectionId`,
        message: `No ${ref.provider} connection to use from trigger ${unresolved.map((trigger) => trigger.id).join(', ')}: name one on the node, or keep exactly one ${ref.provider} connection.`,
      });
    }
  });
  return issues;
}
