import { describe, expect, it } from '@jest/globals';

import type { Diagram } from '../editor/diagram';
import { currentFlow, diffDiagrams, diffSummary, edgeKey, laidOut, proposalFlow } from './proposal-diff.util';

const node = (id: string, type: string, properties: Record<string, unknown> = {}, position?: object) => ({
  id,
  data: { type, properties },
  ...(position ? { position } : {}),
});

describe("an assistant's proposal compared with the current draft", () => {
  const current: Diagram = {
    nodes: [
      node('start', 'trigger', { kind: 'manual' }, { x: 80, y: 40 }),
      node('wait', 'delay', { seconds: 1 }, { x: 80, y: 170 }),
      node('notify', 'action', { action: 'http__request', input: {} }, { x: 80, y: 300 }),
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'wait' },
      { id: 'e2', source: 'wait', target: 'notify' },
    ],
    settings: { onError: 'stop' },
  };

  it('marks nodes added, changed and removed by id, the proposal’s first, then the removed ones', () => {
    const proposed: Diagram = {
      nodes: [
        // Moved and with its properties written in another order: neither is a change.
        node('start', 'trigger', { kind: 'manual' }, { x: 300, y: 40 }),
        node('wait', 'delay', { seconds: 5 }),
        node('again', 'delay', { seconds: 2 }),
      ],
      edges: [
        { id: 'x1', source: 'start', target: 'wait' },
        { id: 'x2', source: 'wait', target: 'again' },
      ],
      settings: { onError: 'stop' },
    };

    const diff = diffDiagrams(current, proposed);

    expect(diff.nodes).toEqual([
      { id: 'start', type: 'trigger', change: 'same' },
      { id: 'wait', type: 'delay', change: 'changed' },
      { id: 'again', type: 'delay', change: 'added' },
      { id: 'notify', type: 'action', change: 'removed' },
    ]);
    // Edges by what they join, whatever the model named them.
    expect([...diff.addedEdges]).toEqual([edgeKey({ source: 'wait', target: 'again' })]);
    expect([...diff.removedEdges]).toEqual([edgeKey({ source: 'wait', target: 'notify' })]);
    expect(diff.settingsChanged).toBe(false);
    expect(diffSummary(diff, proposed, false)).toBe(
      'Compared with the current draft: 1 added, 1 changed, 1 removed; 1 edge added, 1 removed.',
    );
    expect(diffSummary(diffDiagrams(current, current), current, false)).toBe(
      'Compared with the current draft: no node changes; 0 edges added, 0 removed.',
    );
  });

  it('sees a changed type, key order aside, and changed settings', () => {
    const reordered = {
      ...current,
      nodes: [
        { id: 'start', data: { properties: { kind: 'manual' }, type: 'trigger' }, position: { x: 1, y: 1 } },
        node('wait', 'code', { seconds: 1 }),
        current.nodes[2]!,
      ],
      settings: { onError: 'rollback' },
    };

    const diff = diffDiagrams(current, reordered);

    expect(diff.nodes.map((entry) => entry.change)).toEqual(['same', 'changed', 'same']);
    expect(diff.settingsChanged).toBe(true);
    expect(diff.addedEdges.size + diff.removedEdges.size).toBe(0);
    expect(diffSummary(diff, reordered, false)).toMatch(/; its settings change\.$/);
  });

  it('tells edges apart by their handles', () => {
    const withHandle = {
      ...current,
      edges: [{ id: 'e1', source: 'start', target: 'wait', sourceHandle: 'true' }, current.edges[1]!],
    };
    const diff = diffDiagrams(current, withHandle);
    expect(diff.addedEdges.size).toBe(1);
    expect(diff.removedEdges.size).toBe(1);
  });

  it('compares a new workflow with nothing: every node is added', () => {
    const diff = diffDiagrams({ nodes: [], edges: [] }, current);
    expect(diff.nodes.map((entry) => entry.change)).toEqual(['added', 'added', 'added']);
    expect(diff.addedEdges.size).toBe(2);
    expect(diff.settingsChanged).toBe(true);
    expect(diffSummary(diff, current, true)).toBe('A new workflow of 3 nodes and 2 edges.');
  });

  it('places unplaced nodes where they were, and new ones below the rest', () => {
    const proposed: Diagram = {
      nodes: [node('start', 'trigger'), node('again', 'delay'), node('more', 'delay', {}, { x: 5, y: 600 })],
      edges: [],
    };

    const placed = laidOut(proposed, current);

    expect(placed.nodes.map((entry) => entry.position)).toEqual([
      { x: 80, y: 40 },
      { x: 80, y: 730 },
      { x: 5, y: 600 },
    ]);
    // On an empty canvas the first new node lands on the editor's first row.
    expect(
      laidOut({ nodes: [node('a', 'trigger')], edges: [] }, { nodes: [], edges: [] }).nodes[0]!.position,
    ).toEqual({ x: 80, y: 40 });
  });

  it('draws the proposal marked, with the removed nodes and edges ghosted and problems on their nodes', () => {
    const proposed = laidOut(
      {
        nodes: [current.nodes[0]!, node('wait', 'delay', { seconds: 5 }), node('again', 'delay')],
        edges: [current.edges[0]!, { id: 'e3', source: 'wait', target: 'again' }],
      },
      current,
    );
    const diff = diffDiagrams(current, proposed);

    const flow = proposalFlow(current, proposed, diff, new Map([['again', ['seconds is required']]]));

    expect(flow.nodes.map((entry) => [entry.id, entry.data.diff, entry.ariaLabel])).toEqual([
      ['start', undefined, 'start (trigger)'],
      ['wait', 'changed', 'wait (delay): changed'],
      ['again', 'added', 'again (delay): added'],
      ['notify', 'removed', 'notify (action): removed'],
    ]);
    expect(flow.nodes[2]!.data.problems).toEqual(['seconds is required']);
    expect(flow.nodes[3]!.position).toEqual({ x: 80, y: 300 });
    expect(flow.edges.map((entry) => [entry.id, entry.className])).toEqual([
      ['e1', undefined],
      ['e3', 'diff-added'],
      ['removed:e2', 'diff-removed'],
    ]);

    const before = currentFlow(current, diff);
    expect(before.nodes.map((entry) => entry.data.diff)).toEqual([undefined, 'changed', 'removed']);
    expect(before.edges.map((entry) => entry.className)).toEqual([undefined, 'diff-removed']);
  });
});
