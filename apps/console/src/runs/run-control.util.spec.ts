import { describe, expect, it } from '@jest/globals';

import type { Schemas } from '../api/client';
import {
  hasCompensations,
  movesFor,
  nodeStatuses,
  rerunBody,
  rerunStarts,
  stepKey,
} from './run-control.util';

type Step = Schemas['RunStepDto'];

const step = (nodeId: string, status: Step['status'], extra: Partial<Step> = {}): Step => ({
  nodeId,
  status,
  via: [],
  input: null,
  output: null,
  error: null,
  ms: 1,
  startedAt: '2026-11-30T10:00:00.000Z',
  ...extra,
});

describe('run control in the console', () => {
  it('offers the moves the status allows', () => {
    expect(movesFor('running')).toEqual({ pause: true, resume: false, cancel: true, rerun: false });
    expect(movesFor('paused')).toEqual({ pause: false, resume: true, cancel: true, rerun: false });
    expect(movesFor('waitingForPause')).toEqual({ pause: false, resume: false, cancel: true, rerun: false });
    expect(movesFor('rollingBack')).toEqual({ pause: false, resume: false, cancel: false, rerun: false });
    expect(movesFor('errored')).toEqual({ pause: false, resume: false, cancel: false, rerun: true });
    expect(movesFor('unknown')).toEqual({ pause: false, resume: false, cancel: false, rerun: false });
  });

  it('tells a compensation from the step it undid', () => {
    expect(stepKey(step('pay', 'done'))).toBe('pay');
    expect(stepKey(step('pay', 'done', { compensation: true }))).toBe('undo:pay');
  });

  it('shows on each node its step, what a rerun carried over, and its undo', () => {
    const steps = [
      step('t', 'done', { carriedFrom: 'old' }),
      step('pay', 'done'),
      step('ship', 'done'),
      step('mail', 'error'),
      step('ship', 'done', { compensation: true }),
      step('pay', 'error', { compensation: true }),
    ];
    expect(nodeStatuses(steps)).toEqual({ t: 'carried', pay: 'undo-failed', ship: 'undone', mail: 'error' });
    expect(nodeStatuses([step('pay', 'done'), step('pay', 'running', { compensation: true })])).toEqual({
      pay: 'undoing',
    });
  });

  it('offers each executed step once as where a rerun starts, and builds its body', () => {
    expect(
      rerunStarts([step('t', 'done'), step('pay', 'done'), step('pay', 'done', { compensation: true })]),
    ).toEqual(['t', 'pay']);
    expect(rerunBody({ kind: 'failure' })).toEqual({});
    expect(rerunBody({ kind: 'step', nodeId: 'pay' })).toEqual({ fromNodeId: 'pay' });
    expect(rerunBody({ kind: 'input', input: '{"a":1}' })).toEqual({ input: '{"a":1}' });
  });

  it('knows a diagram that can roll back', () => {
    const action = (properties: Record<string, unknown>) => ({
      id: 'pay',
      data: { type: 'action', properties: { action: 'http__request', ...properties } },
    });
    expect(hasCompensations({ nodes: [action({})], edges: [] })).toBe(false);
    expect(
      hasCompensations({
        nodes: [action({ compensate: { action: 'http__request', input: {} } })],
        edges: [],
      }),
    ).toBe(true);
  });
});
