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
    run: { id: 'old', triggerNodeId: 't', diagram, input: '{"n":1}', diagramTrimmedAt: null } as RunRecord,
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

  describe('of a run retention trimmed', () => {
    const at = new Date('2027-01-05T03:00:00.000Z');
    const trimmedStep = (nodeId: string, position: number, status: StepRecord['status'] = 'done') => ({
      ...step(nodeId, position, status),
      input: null,
      output: null,
      payloadTrimmedAt: at,
    });
    const issuesOf = (run: RunWithSteps, body: Parameters<typeof rerunPlan>[1]) => {
      try {
        rerunPlan(run, body);
      } catch (error) {
        expect(error).toBeInstanceOf(DomainException);
        return { code: (error as DomainException).code, details: (error as DomainException).details };
      }
      throw new Error('the rerun was not refused');
    };

    it('refuses to carry a step whose output was trimmed, naming the steps and the day', () => {
      const failed = oldRun([
        trimmedStep('t', 0),
        trimmedStep('a', 1),
        trimmedStep('side', 2),
        trimmedStep('b', 3, 'error'),
      ]);
      expect(issuesOf(failed, {})).toEqual({
        code: 'invalid_request',
        details: {
          issues: [
            {
              path: 'id',
              message: expect.stringMatching(
                /\(a, side\) were trimmed by retention on 2027-01-05; rerun it from its trigger/,
              ),
            },
          ],
        },
      });
      expect(issuesOf(failed, { fromNodeId: 'b' }).details).toEqual({
        issues: [{ path: 'fromNodeId', message: expect.stringContaining('trimmed by retention') }],
      });
    });

    it('still reruns from the trigger, which carries nothing: the run keeps its input', () => {
      const complete = oldRun([trimmedStep('t', 0), trimmedStep('a', 1), trimmedStep('side', 2)]);
      expect(rerunPlan(complete, {})).toEqual({ input: '{"n":1}', carried: [] });
      expect(rerunPlan(complete, { fromNodeId: 't' })).toEqual({ input: '{"n":1}', carried: [] });
      expect(rerunPlan(complete, { input: 'new' })).toEqual({ input: 'new', carried: [] });
    });

    it('refuses every rerun of a run whose diagram was trimmed, since a rerun runs that diagram', () => {
      const run = oldRun([step('t', 0), step('a', 1)]);
      const trimmedDiagram = { ...run, run: { ...run.run, diagramTrimmedAt: at } };
      for (const body of [{}, { input: 'new' }, { fromNodeId: 't' }]) {
        expect(issuesOf(trimmedDiagram, body).details).toEqual({
          issues: [
            {
              path: 'id',
              message: expect.stringContaining('diagram was trimmed by retention on 2027-01-05'),
            },
          ],
        });
      }
    });
  });
});
