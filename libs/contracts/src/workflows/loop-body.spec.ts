import type { Diagram, DiagramEdge, DiagramNode } from './diagram.js';
import {
  isLoopBackEdge,
  iterationDiagram,
  LOOP_MAX_CONCURRENCY,
  LOOP_MAX_ITEMS,
  loopBodies,
} from './loop-body.js';
import { validateDiagram } from './validate-diagram.js';

const node = (id: string, type: string, properties: Record<string, unknown> = {}): DiagramNode => ({
  id,
  data: { type, properties },
});
const loop = (id: string, properties: Record<string, unknown> = {}) =>
  node(id, 'loop', { items: '{{trigger}}', ...properties });
const step = (id: string) => node(id, 'delay', { seconds: 1 });
const edge = (
  id: string,
  source: string,
  target: string,
  sourceHandle?: string,
  targetHandle?: string,
): DiagramEdge => ({
  id,
  source,
  target,
  ...(sourceHandle === undefined ? {} : { sourceHandle }),
  ...(targetHandle === undefined ? {} : { targetHandle }),
});
const trigger = node('t', 'trigger', { kind: 'manual' });

/** t → outer; outer's body: a → inner (body: b → c, back to inner) → d, back to outer; outer → after. */
const nested: Diagram = {
  nodes: [
    trigger,
    loop('outer', { concurrency: 4 }),
    step('a'),
    loop('inner'),
    step('b'),
    step('c'),
    step('d'),
    step('after'),
  ],
  edges: [
    edge('1', 't', 'outer'),
    edge('2', 'outer', 'a', 'body'),
    edge('3', 'a', 'inner'),
    edge('4', 'inner', 'b', 'body'),
    edge('5', 'b', 'c'),
    edge('6', 'c', 'inner', undefined, 'done'),
    edge('7', 'inner', 'd', 'done'),
    edge('8', 'd', 'outer', undefined, 'done'),
    edge('9', 'outer', 'after'),
  ],
  settings: { onError: 'rollback', errorWorkflowId: 'w' },
};

describe('loop bodies', () => {
  it('are what the body edges reach, nested loops and what follows them included', () => {
    const bodies = loopBodies(nested);
    expect([...(bodies.get('outer')?.nodes ?? [])]).toEqual(['a', 'inner', 'b', 'd', 'c']);
    expect([...(bodies.get('inner')?.nodes ?? [])]).toEqual(['b', 'c']);
    expect(nested.edges.filter((one) => isLoopBackEdge(one, bodies)).map((one) => one.id)).toEqual([
      '6',
      '8',
    ]);
  });

  it("give an iteration the loop, its body and the edges between them, and the workflow's onError", () => {
    const bodies = loopBodies(nested);
    const outer = iterationDiagram(nested, 'outer', bodies.get('outer')!);
    expect(outer.nodes.map((one) => one.id)).toEqual(['outer', 'a', 'inner', 'b', 'c', 'd']);
    expect(outer.edges.map((one) => one.id)).toEqual(['2', '3', '4', '5', '6', '7']);
    expect(outer.settings).toEqual({ onError: 'rollback' });
    // Cut from the outer iteration's diagram, the inner iteration's is the same as from the whole.
    const inner = iterationDiagram(outer, 'inner', loopBodies(outer).get('inner')!);
    expect(inner).toEqual(iterationDiagram(nested, 'inner', bodies.get('inner')!));
    expect(inner.nodes.map((one) => one.id)).toEqual(['inner', 'b', 'c']);
    expect(inner.edges.map((one) => one.id)).toEqual(['4', '5']);
  });
});

describe('validateDiagram on loops', () => {
  it('accepts nested loops whose bodies close back on their loops', () => {
    expect(validateDiagram(nested)).toEqual([]);
    // The edges back are optional.
    expect(
      validateDiagram({ ...nested, edges: nested.edges.filter((one) => one.id !== '6' && one.id !== '8') }),
    ).toEqual([]);
  });

  it('checks the properties against LoopNodeProperties', () => {
    const issues = validateDiagram({
      nodes: [
        trigger,
        node('l', 'loop', {
          concurrency: LOOP_MAX_CONCURRENCY + 1,
          continueOnError: 'yes',
        }),
        node('m', 'loop', { items: '[1]', retry: { attempts: 1, backoffSeconds: 1 } }),
        step('b'),
        step('c'),
      ],
      edges: [
        edge('1', 't', 'l'),
        edge('2', 'l', 'b', 'body'),
        edge('3', 't', 'm'),
        edge('4', 'm', 'c', 'body'),
      ],
    });
    expect(issues.map((issue) => [issue.path, issue.nodeId, issue.message])).toEqual([
      ['nodes.1.data.properties.items', 'l', 'node "l": properties.items is required'],
      [
        'nodes.1.data.properties.concurrency',
        'l',
        `node "l": properties.concurrency must be <= ${LOOP_MAX_CONCURRENCY}`,
      ],
      [
        'nodes.1.data.properties.continueOnError',
        'l',
        'node "l": properties.continueOnError must be boolean',
      ],
      [
        'nodes.2.data.properties.retry',
        'm',
        'node "m": a loop is not retried; give retry to the steps of its body instead',
      ],
    ]);
    expect(LOOP_MAX_ITEMS).toBe(10_000);
  });

  it('needs a body and known handles out of a loop', () => {
    const issues = validateDiagram({
      nodes: [trigger, loop('l'), step('b')],
      edges: [edge('1', 't', 'l'), edge('2', 'l', 'b', 'each')],
    });
    expect(issues).toEqual([
      {
        path: 'nodes.1',
        nodeId: 'l',
        message: 'loop "l" has no body: connect its "body" handle to the first node to run for each item',
      },
      {
        path: 'edges.1.sourceHandle',
        edgeId: '2',
        nodeId: 'l',
        message:
          'edge "2": an edge out of loop "l" needs sourceHandle "body" (into its body), "done" or none (after its last iteration)',
      },
    ]);
  });

  it('refuses a body left for a node after the loop, naming the edge that led out', () => {
    // c leads to `after`, which the loop's done edge also reaches: `after` would run in both.
    const issues = validateDiagram({
      nodes: [trigger, loop('l'), step('b'), step('c'), step('after')],
      edges: [
        edge('1', 't', 'l'),
        edge('2', 'l', 'b', 'body'),
        edge('3', 'b', 'c'),
        edge('4', 'c', 'after'),
        edge('5', 'l', 'after', 'done'),
      ],
    });
    expect(issues).toEqual([
      {
        path: 'edges.4.target',
        edgeId: '5',
        nodeId: 'l',
        message:
          'edge "5": "after" is in the body of loop "l" (it is in the body through edge "4" from "c"), but this edge comes from "l", outside it; a body is entered only through its loop\'s "body" edges and left only back to its loop',
      },
    ]);
  });

  it('refuses an edge into a body from outside', () => {
    const issues = validateDiagram({
      nodes: [trigger, node('t2', 'trigger', { kind: 'api' }), loop('l'), step('b'), step('c')],
      edges: [edge('1', 't', 'l'), edge('2', 'l', 'b', 'body'), edge('3', 'b', 'c'), edge('4', 't2', 'c')],
    });
    expect(issues).toEqual([
      {
        path: 'edges.3.target',
        edgeId: '4',
        nodeId: 'l',
        message:
          'edge "4": "c" is in the body of loop "l" (it is in the body through edge "3" from "b"), but this edge comes from "t2", outside it; a body is entered only through its loop\'s "body" edges and left only back to its loop',
      },
    ]);
  });

  it('refuses a trigger inside a body', () => {
    const issues = validateDiagram({
      nodes: [trigger, node('t2', 'trigger', { kind: 'api' }), loop('l'), step('b')],
      edges: [edge('1', 't', 'l'), edge('2', 'l', 'b', 'body'), edge('3', 'b', 't2')],
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      'edge "3": trigger "t2" cannot have incoming edges',
      'trigger "t2" cannot be in the body of loop "l"',
    ]);
  });

  it('still refuses cycles other than the edges back to a loop', () => {
    const issues = validateDiagram({
      nodes: [trigger, loop('l'), step('b'), step('c')],
      edges: [
        edge('1', 't', 'l'),
        edge('2', 'l', 'b', 'body'),
        edge('3', 'b', 'c'),
        edge('4', 'c', 'b'),
        edge('5', 'c', 'l', undefined, 'done'),
      ],
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      'edge "4" closes a cycle: b → c → b; diagrams must be acyclic',
    ]);
  });

  it('refuses a body edge from an inner loop back to the outer loop', () => {
    const issues = validateDiagram({
      ...nested,
      edges: [...nested.edges.filter((one) => one.id !== '6'), edge('6', 'c', 'outer')],
    });
    expect(issues.map((issue) => issue.message)).toContainEqual(
      'edge "1": "outer" is in the body of loop "inner" (it is in the body through edge "6" from "c"), but this edge comes from "t", outside it; a body is entered only through its loop\'s "body" edges and left only back to its loop',
    );
  });
});
