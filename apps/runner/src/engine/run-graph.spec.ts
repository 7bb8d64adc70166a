import type { Diagram } from '#contracts';

import { type ReplyStep, replyText } from './reply.util.js';
import { RunGraph } from './run-graph.js';

const node = (id: string, type = 'condition') => ({ id, data: { type, properties: {} } });
const edge = (id: string, source: string, target: string, sourceHandle?: string) => ({
  id,
  source,
  target,
  ...(sourceHandle ? { sourceHandle } : {}),
});

// a → c (true) → d, c (false) → e; b is another trigger that reaches f only.
const diagram: Diagram = {
  nodes: [node('a', 'trigger'), node('b', 'trigger'), node('c'), node('d'), node('e'), node('f')],
  edges: [
    edge('1', 'a', 'c'),
    edge('2', 'c', 'd', 'true'),
    edge('3', 'c', 'e', 'false'),
    edge('4', 'b', 'f'),
    edge('5', 'b', 'd'),
  ],
};

describe('RunGraph', () => {
  const graph = RunGraph.of(diagram, 'a');

  it('holds only what the starting trigger reaches, breadth first', () => {
    expect(graph.order).toEqual(['a', 'c', 'd', 'e']);
    expect(graph.has('f')).toBe(false);
    expect(graph.has('b')).toBe(false);
  });

  it('ignores edges from nodes the run cannot reach', () => {
    expect(graph.incoming('d').map((one) => one.id)).toEqual(['2']);
    expect(graph.outgoing('c').map((one) => one.id)).toEqual(['2', '3']);
  });
});

describe('replyText', () => {
  const graph = RunGraph.of(diagram, 'a');
  const textField = (id: string) => (id === 'a' ? 'payload' : 'result');

  it('joins the text of the nodes that ran and fired nothing, in start order', () => {
    const steps: ReplyStep[] = [
      { nodeId: 'a', status: 'done' as const, route: null, output: { payload: 'in' } },
      { nodeId: 'c', status: 'done' as const, route: 'true', output: { result: 'true' } },
      { nodeId: 'd', status: 'done' as const, route: null, output: { result: 'first' } },
      { nodeId: 'e', status: 'skipped' as const, route: null, output: null },
    ];
    expect(replyText(steps, graph, textField)).toBe('first');
  });

  it('counts a condition whose route has no edge as an end, and skips empty text', () => {
    const lone = RunGraph.of(
      {
        nodes: [node('a', 'trigger'), node('c'), node('x')],
        edges: [edge('1', 'a', 'c'), edge('2', 'a', 'x'), edge('3', 'c', 'x', 'true')],
      },
      'a',
    );
    const steps: ReplyStep[] = [
      { nodeId: 'a', status: 'done' as const, route: null, output: { payload: 'in' } },
      { nodeId: 'c', status: 'done' as const, route: 'false', output: { result: 'false' } },
      { nodeId: 'x', status: 'done' as const, route: null, output: { result: '' } },
    ];
    expect(replyText(steps, lone, textField)).toBe('false');
  });
});
