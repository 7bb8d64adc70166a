import { describe, expect, it } from '@jest/globals';

import { fromFlow, loopsOf, nextNodeId, restOf, summary, toFlow } from './diagram';

describe('the editor diagram', () => {
  const diagram = {
    nodes: [
      { id: 'start', data: { type: 'trigger', properties: { kind: 'manual' } }, position: { x: 10, y: 20 } },
      {
        id: 'check',
        data: { type: 'condition', properties: { conditions: [] }, note: 'kept' },
        color: 'blue',
      },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'check' }],
    viewport: { zoom: 1 },
  };

  it('round-trips nodes, edges and layout, keeping what the API stores beside them', () => {
    const flow = toFlow(diagram);
    expect(flow.nodes[0]!.position).toEqual({ x: 10, y: 20 });
    // A node without a position (made through the API) gets one in a column.
    expect(flow.nodes[1]!.position).toEqual({ x: 120, y: 170 });
    const back = fromFlow(flow.nodes, flow.edges);
    expect(back.nodes).toEqual([
      { id: 'start', data: { type: 'trigger', properties: { kind: 'manual' } }, position: { x: 10, y: 20 } },
      {
        id: 'check',
        data: { type: 'condition', properties: { conditions: [] }, note: 'kept' },
        position: { x: 120, y: 170 },
      },
    ]);
    expect(back.edges).toEqual([{ id: 'e1', source: 'start', target: 'check' }]);
  });

  it("keeps the diagram's own properties, its settings among them", () => {
    const withSettings = { ...diagram, settings: { onError: 'rollback', errorWorkflowId: 'w-2' }, zoom: 2 };
    const flow = toFlow(withSettings);
    expect(fromFlow(flow.nodes, flow.edges, restOf(withSettings))).toMatchObject({
      settings: { onError: 'rollback', errorWorkflowId: 'w-2' },
      zoom: 2,
    });
  });

  it('leaves what it shows on a node (problems, a step status) out of the saved diagram', () => {
    const flow = toFlow(diagram);
    flow.nodes[0]!.data = { ...flow.nodes[0]!.data, problems: ['bad'], status: 'done' };
    expect(fromFlow(flow.nodes, flow.edges).nodes[0]!.data).toEqual({
      type: 'trigger',
      properties: { kind: 'manual' },
    });
  });

  it('keeps a condition edge on its handle', () => {
    const flow = toFlow({
      nodes: diagram.nodes,
      edges: [{ id: 'e', source: 'check', target: 'start', sourceHandle: 'false' }],
    });
    expect(fromFlow(flow.nodes, flow.edges).edges).toEqual([
      { id: 'e', source: 'check', target: 'start', sourceHandle: 'false' },
    ]);
  });

  it('names a new node after its type, numbered when taken', () => {
    expect(nextNodeId('delay', ['trigger'])).toBe('delay');
    expect(nextNodeId('delay', ['delay', 'delay_2'])).toBe('delay_3');
  });

  it('summarizes a node for its box', () => {
    expect(
      summary({
        type: 'condition',
        properties: { conditions: [{ left: '{{trigger.amount}}', operator: 'greater_than', right: '100' }] },
      }),
    ).toBe('{{trigger.amount}} greater_than 100');
    expect(summary({ type: 'delay', properties: { seconds: 30 } })).toBe('30 s');
    expect(
      summary({ type: 'code', properties: { code: '\n  const rows = nodes.q.rows;\nreturn rows;' } }),
    ).toBe('const rows = nodes.q.rows;');
  });

  it("finds each node's loops, outermost first, and keeps loop edges' handles", () => {
    const looped = {
      nodes: [
        { id: 't', data: { type: 'trigger', properties: {} } },
        { id: 'outer', data: { type: 'loop', properties: {} } },
        { id: 'inner', data: { type: 'loop', properties: {} } },
        { id: 'b', data: { type: 'delay', properties: {} } },
        { id: 'after', data: { type: 'delay', properties: {} } },
      ],
      edges: [
        { id: '1', source: 't', target: 'outer' },
        { id: '2', source: 'outer', target: 'inner', sourceHandle: 'body' },
        { id: '3', source: 'inner', target: 'b', sourceHandle: 'body' },
        { id: '4', source: 'b', target: 'inner', targetHandle: 'done' },
        { id: '5', source: 'inner', target: 'outer', sourceHandle: 'done', targetHandle: 'done' },
        { id: '6', source: 'outer', target: 'after', sourceHandle: 'done' },
      ],
    };
    expect(Object.fromEntries(loopsOf(looped.nodes, looped.edges))).toEqual({
      inner: ['outer'],
      b: ['outer', 'inner'],
    });
    const flow = toFlow(looped);
    expect(flow.nodes.find((node) => node.id === 'b')?.data.loops).toEqual(['outer', 'inner']);
    expect(flow.edges.map((edge) => edge.className ?? '')).toEqual([
      '',
      'loop-body-edge',
      'loop-body-edge',
      'loop-back-edge',
      'loop-back-edge',
      '',
    ]);
    // What the editor shows (the loops) is not saved; the handles are.
    const back = fromFlow(flow.nodes, flow.edges);
    expect(back.nodes.find((node) => node.id === 'b')?.data).toEqual({ type: 'delay', properties: {} });
    expect(back.edges).toEqual(looped.edges);
    expect(summary({ type: 'loop', properties: { items: '{{nodes.q.rows}}', concurrency: 8 } })).toBe(
      'each of {{nodes.q.rows}} · 8 at a time',
    );
  });
});
