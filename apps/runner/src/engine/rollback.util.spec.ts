import type { DiagramNode } from '#contracts';

import { type StepRecord, stepRecord } from './run-state.js';
import { compensationOrder, compensationRetryOf, rollbackError } from './rollback.util.js';

const compensate = { action: 'http__request', input: { url: 'https://example.com/undo' } };

const nodesById = new Map<string, DiagramNode>([
  ['a', { id: 'a', data: { type: 'action', properties: { action: 'http__request', compensate } } }],
  ['b', { id: 'b', data: { type: 'action', properties: { action: 'http__request', compensate } } }],
  ['plain', { id: 'plain', data: { type: 'action', properties: { action: 'http__request' } } }],
  ['cond', { id: 'cond', data: { type: 'condition', properties: { compensate } } }],
]);

function step(
  nodeId: string,
  position: number,
  startMs: number,
  ms: number,
  status: StepRecord['status'] = 'done',
): StepRecord {
  return stepRecord({
    nodeId,
    position,
    status,
    error: status === 'error' ? `${nodeId} broke` : null,
    ms,
    startedAt: new Date(startMs),
  });
}

describe('rollback', () => {
  it('undoes the done actions with a compensate, the last to complete first', () => {
    // b started later but finished first; a took longer and completed last.
    const steps = [
      step('a', 1, 1_000, 5_000),
      step('b', 2, 2_000, 1_000),
      step('plain', 3, 3_000, 1),
      step('cond', 4, 0, 1),
    ];
    expect(compensationOrder(steps, (id) => nodesById.get(id)).map((one) => one.nodeId)).toEqual(['a', 'b']);
  });

  it('leaves out steps that did not finish and compensations themselves', () => {
    const steps = [step('a', 1, 0, 1, 'error'), { ...step('b', 2, 0, 1), compensation: true }];
    expect(compensationOrder(steps, (id) => nodesById.get(id))).toEqual([]);
  });

  it('retries a compensation twice by default, as its own retry says otherwise', () => {
    expect(compensationRetryOf(compensate)).toEqual({ attempts: 2, backoffSeconds: 1 });
    expect(compensationRetryOf({ ...compensate, retry: { attempts: 5, backoffSeconds: 3 } })).toEqual({
      attempts: 5,
      backoffSeconds: 3,
    });
    expect(compensationRetryOf({ ...compensate, retry: { attempts: 0, backoffSeconds: 1 } })).toBeNull();
  });

  it('reports what stopped the run, then each compensation that failed', () => {
    const failed = { ...step('b', 5, 0, 1, 'error'), compensation: true };
    const done = { ...step('a', 6, 0, 1), compensation: true };
    expect(rollbackError('Node "f" failed.', [done, failed])).toBe(
      'Node "f" failed.\nThe compensation of "b" failed: b broke',
    );
  });
});
