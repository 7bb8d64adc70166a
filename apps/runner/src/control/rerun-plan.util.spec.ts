import { DomainException } from '#common';
import type { Diagram } from '#contracts';

import { type RunRecord, type RunWithSteps, type StepRecord, stepRecord } from '../engine/run-state.js';
import { rerunPlan } from './rerun-plan.util.js';

const node = (id: string, type = 'condition') => ({ id, data: { type, properties: {} } });
const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });

/** t → a → b → c, and t → side, a branch of its own. */
const diagram: Diagram = {
  nodes: [node('t', 'trigger'), node('a'), node('b'), node('c'), node('side'), node('other', 'trigger')],
  edges: [edge('t', 'a'), edge('a', 'b'), edge('b', 'c'), edge('t', 'side')],
};

function step(nodeId: string, position: number, status: StepRecord['status'] = 'done'): StepRecord {
  return stepRecord({
    nodeId,
    position,
    status,
    via: position === 0 ? [] : ['e'],
    output: status === 'done' ? { result: nodeId } : null,
    error: status === 'error' ? 'failed' : null,
    ms: 1,
    startedAt: new Date('2026-11-27T10:00:00.000Z'),
  });
}

function oldRun(steps: StepRecord[]): RunWithSteps {
  return {
    run: { id: 'old', triggerNodeId: 't', diagram, input: '{"n":1}' } as RunRecord,
    steps,
  };
}

const carriedOf = (plan: ReturnType<typeof rerunPlan>) =>
  plan.carried.map((carried) => [carried.nodeId, carried.status, carried.position, carried.carriedFrom]);

describe('rerunPlan', () => {
  const complete = oldRun([step('t', 0), step('a', 1), step('side', 2), step('b', 3), step('c', 4)]);

  it('carries every settled step that does not depend on the node it starts from', () => {
    expect(carriedOf(rerunPlan(complete, { fromNodeId: 'b' }))).toEqual([
      ['a', 'done', 1, 'old'],
      ['side', 'done', 2, 'old'],
    ]);
    expect(carriedOf(rerunPlan(complete, { fromNodeId: 'a' }))).toEqual([['side', 'done', 1, 'old']]);
    expect(rerunPlan(complete, { fromNodeId: 'b' }).input).toBe('{"n":1}');
  });

  it('starts at the first failed step without a node, and carries skipped steps too', () => {
    const failed = oldRun([
      step('t', 0),
      step('a', 1),
      step('side', 2, 'skipped'),
      step('b', 3, 'error'),
      step('c', 4, 'skipped'),
    ]);
    expect(carriedOf(rerunPlan(failed, {}))).toEqual([
      ['a', 'done', 1, 'old'],
      ['side', 'skipped', 2, 'old'],
    ]);
  });

  it('carries nothing from the trigger: with no failure, from the trigger node, or with a new input', () => {
    expect(rerunPlan(complete, {})).toEqual({ input: '{"n":1}', carried: [] });
    expect(rerunPlan(complete, { fromNodeId: 't' })).toEqual({ input: '{"n":1}', carried: [] });
    expect(rerunPlan(complete, { input: 'new' })).toEqual({ input: 'new', carried: [] });
  });

  it('never carries a step that did not settle, nor one the old run undid, nor what follows it', () => {
    const unsettled = oldRun([step('t', 0), step('a', 1), step('side', 2, 'waiting'), step('b', 3, 'error')]);
    expect(carriedOf(rerunPlan(unsettled, {}))).toEqual([['a', 'done', 1, 'old']]);
    // a was undone by the rollback: a rerun from b runs a (and b, c) anew; side stands.
    const rolledBack = oldRun([
      step('t', 0),
      step('a', 1),
      step('side', 2),
      step('b', 3, 'error'),
      { ...step('a', 4), compensation: true },
    ]);
    expect(carriedOf(rerunPlan(rolledBack, {}))).toEqual([['side', 'done', 1, 'old']]);
  });

  it('refuses a node the run cannot reach, and a node and an input together', () => {
    for (const body of [
      { fromNodeId: 'nowhere' },
      { fromNodeId: 'other' },
      { fromNodeId: 'a', input: 'x' },
    ]) {
      expect(() => rerunPlan(complete, body)).toThrow(DomainException);
    }
  });
});
