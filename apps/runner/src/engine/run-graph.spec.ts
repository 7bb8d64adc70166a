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

describe('RunGraph with loops', () => {
  // t → outer → after; outer's body: a → inner → d (→ back to outer); inner's body: b → c (→ back to inner).
  const looped: Diagram = {
    nodes: [
      node('t', 'trigger'),
      node('outer', 'loop'),
      node('a'),
      node('inner', 'loop'),
      node('b'),
      node('c'),
      node('d'),
      node('after'),
    ],
    edges: [
      edge('1', 't', 'outer'),
      edge('2', 'outer', 'a', 'body'),
      edge('3', 'a', 'inner', 'true'),
      edge('4', 'inner', 'b', 'body'),
      edge('5', 'b', 'c', 'true'),
      { ...edge('6', 'c', 'inner', 'true'), targetHandle: 'done' },
      edge('7', 'inner', 'd', 'done'),
      { ...edge('8', 'd', 'outer', 'true'), targetHandle: 'done' },
      edge('9', 'outer', 'after'),
    ],
  };

  it('does not walk into a body: the loop goes straight on to what follows it', () => {
    const graph = RunGraph.of(looped, 't');
    expect(graph.order).toEqual(['t', 'outer', 'after']);
    expect(graph.incoming('outer').map((one) => one.id)).toEqual(['1']);
    expect(graph.outgoing('outer').map((one) => one.id)).toEqual(['9']);
  });

  it('walks an iteration from its loop through the body edges only, and no edge back', () => {
    const outer = RunGraph.of(looped, 'outer');
    expect(outer.order).toEqual(['outer', 'a', 'inner', 'd']);
    expect(outer.outgoing('outer').map((one) => one.id)).toEqual(['2']);
    expect(outer.outgoing('d')).toEqual([]);
    expect(outer.outgoing('inner').map((one) => one.id)).toEqual(['7']);
    const inner = RunGraph.of(looped, 'inner');
    expect(inner.order).toEqual(['inner', 'b', 'c']);
    expect(inner.incoming('inner')).toEqual([]);
    expect(inner.outgoing('c')).toEqual([]);
  });

  it('ends an iteration on the last body node, whose text is its reply', () => {
    const inner = RunGraph.of(looped, 'inner');
    const steps: ReplyStep[] = [
      { nodeId: 'inner', status: 'done', route: null, output: { item: '1', index: '0' } },
      { nodeId: 'b', status: 'done', route: 'true', output: { result: 'true' } },
      { nodeId: 'c', status: 'done', route: 'true', output: { result: 'last' } },
    ];
    expect(replyText(steps, inner, () => 'result')).toBe('last');
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
