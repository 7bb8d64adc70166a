import type { Diagram, DiagramNode } from '../workflows/diagram.js';
import { actionConnectionIssues, eventTriggerBindings } from './diagram-apps.js';
import { parseActionRef, parseTriggerRef, resolveActionConnection } from './integrations.js';

const node = (id: string, type: string, properties: Record<string, unknown>): DiagramNode => ({
  id,
  data: { type, properties },
});
const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });

const hookA = { id: 'conn-hook-a', integrationId: 'webhook' };
const hookB = { id: 'conn-hook-b', integrationId: 'webhook' };
const http = { id: 'conn-http', integrationId: 'http' };

describe('action and trigger refs', () => {
  it('reads <provider>__<action> and <provider>/<trigger>', () => {
    expect(parseActionRef('http__request')).toEqual({ provider: 'http', action: 'request' });
    expect(parseActionRef('slack__post_message')).toEqual({ provider: 'slack', action: 'post_message' });
    expect(parseActionRef('http_request')).toBeNull();
    expect(parseActionRef('HTTP__request')).toBeNull();
    expect(parseTriggerRef('webhook/received')).toEqual({ provider: 'webhook', trigger: 'received' });
    expect(parseTriggerRef('webhook')).toBeNull();
  });
});

describe('resolveActionConnection (publish rule 4)', () => {
  it("takes the named connection only when it is the app's", () => {
    expect(resolveActionConnection('webhook', 'conn-hook-b', hookA, [hookA, hookB])).toEqual(hookB);
    expect(resolveActionConnection('webhook', 'conn-http', hookA, [hookA, http])).toBeNull();
    expect(resolveActionConnection('webhook', 'missing', undefined, [hookA])).toBeNull();
  });

  it("takes the trigger's connection when it is the same app's, else the app's only one", () => {
    expect(resolveActionConnection('webhook', undefined, hookB, [hookA, hookB])).toEqual(hookB);
    expect(resolveActionConnection('webhook', undefined, http, [hookA, http])).toEqual(hookA);
    expect(resolveActionConnection('webhook', undefined, undefined, [hookA, hookB])).toBeNull();
    expect(resolveActionConnection('slack', undefined, undefined, [hookA, http])).toBeNull();
  });
});

describe('a diagram and its apps', () => {
  const diagram = (nodes: DiagramNode[], edges: Array<ReturnType<typeof edge>>): Diagram => ({
    nodes,
    edges,
  });

  it('lists the App event triggers with their connection, trigger and filter', () => {
    const bindings = eventTriggerBindings(
      diagram(
        [
          node('hook', 'trigger', {
            kind: 'event',
            connectionId: 'c1',
            trigger: 'webhook/received',
            filter: { 'a.b': 1 },
          }),
          node('api', 'trigger', { kind: 'api' }),
          node('plain', 'trigger', { kind: 'event', connectionId: 'c2', trigger: 'webhook/received' }),
        ],
        [],
      ),
    );
    expect(bindings).toEqual([
      { triggerNodeId: 'hook', connectionId: 'c1', trigger: 'webhook/received', filter: { 'a.b': 1 } },
      { triggerNodeId: 'plain', connectionId: 'c2', trigger: 'webhook/received' },
    ]);
  });

  it('finds a connection for every trigger that reaches an action, and names the action when it cannot', () => {
    const nodes = [
      node('hook-a', 'trigger', { kind: 'event', connectionId: hookA.id, trigger: 'webhook/received' }),
      node('hook-b', 'trigger', { kind: 'event', connectionId: hookB.id, trigger: 'webhook/received' }),
      node('manual', 'trigger', { kind: 'manual' }),
      node('send', 'action', { action: 'webhook__send' }),
      node('call', 'action', { action: 'http__request' }),
    ];
    const edges = [edge('hook-a', 'send'), edge('hook-b', 'send'), edge('manual', 'call')];
    expect(actionConnectionIssues(diagram(nodes, edges), [hookA, hookB, http])).toEqual([]);

    // From the manual trigger there is no webhook connection of its own and two to choose from.
    const ambiguous = actionConnectionIssues(diagram(nodes, [...edges, edge('manual', 'send')]), [
      hookA,
      hookB,
      http,
    ]);
    expect(ambiguous).toEqual([
      expect.objectContaining({
        nodeId: 'send',
        path: 'nodes.3.data.properties.connectionId',
        message: expect.stringContaining('manual'),
      }),
    ]);
    // No http connection at all.
    expect(actionConnectionIssues(diagram(nodes, edges), [hookA, hookB])).toEqual([
      expect.objectContaining({ nodeId: 'call' }),
    ]);
  });

  it('checks a named connection and an unknown action', () => {
    const nodes = [
      node('manual', 'trigger', { kind: 'manual' }),
      node('send', 'action', { action: 'webhook__send', connectionId: http.id }),
      node('odd', 'action', { action: 'webhook__explode' }),
    ];
    const issues = actionConnectionIssues(diagram(nodes, [edge('manual', 'send'), edge('manual', 'odd')]), [
      hookA,
      http,
    ]);
    expect(issues.map((issue) => [issue.nodeId, issue.path])).toEqual([
      ['send', 'nodes.1.data.properties.connectionId'],
      ['odd', 'nodes.2.data.properties.action'],
    ]);
  });
});
