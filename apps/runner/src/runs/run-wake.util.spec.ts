import type { Diagram } from '#contracts';

import { type RunRecord, type RunWithSteps, type StepRecord, stepRecord } from '../engine/run-state.js';
import { nextWakeOf } from './run-wake.util.js';

const now = new Date('2026-12-01T10:00:00.000Z');

const diagram: Diagram = {
  nodes: ['t', 'pause', 'flaky', 'ask', 'later'].map((id) => ({
    id,
    data: {
      type: { t: 'trigger', pause: 'delay', flaky: 'action', ask: 'agent', later: 'delay' }[id]!,
      properties: {},
    },
  })),
  edges: [],
};

const run = { status: 'waiting', createdAt: now, diagram } as RunRecord;

function step(nodeId: string, fields: Partial<StepRecord>): StepRecord {
  return stepRecord({ nodeId, position: 0, status: 'done', startedAt: now, ...fields });
}

/** Only an Agent step that keeps a thread waits on a decision, as the agent executor says. */
const agentDecides = (type: string, state: unknown) =>
  type === 'agent' && (state as { threadId?: unknown } | null)?.threadId !== undefined;

const wakeOf = (steps: StepRecord[], record: Partial<RunRecord> = {}) =>
  nextWakeOf({ run: { ...run, ...record }, steps } satisfies RunWithSteps, agentDecides, now);

describe('nextWakeOf', () => {
  it('answers the earliest due time of the steps waiting on time', () => {
    expect(
      wakeOf([
        step('t', {}),
        step('pause', { status: 'waiting', wakeAt: new Date('2026-12-01T10:00:05.000Z') }),
        step('flaky', {
          status: 'waiting',
          error: 'boom',
          attempt: 2,
          wakeAt: new Date('2026-12-01T10:00:01.000Z'),
        }),
        step('later', { status: 'done', wakeAt: null }),
      ]),
    ).toEqual({ status: 'waiting', wakeAt: '2026-12-01T10:00:01.000Z', awaitsDecision: false });
  });

  it('tells a step waiting on an approval apart, whose due time is only its expiry', () => {
    expect(
      wakeOf([
        step('ask', {
          status: 'waiting',
          state: { threadId: 'th-1' },
          wakeAt: new Date('2026-12-04T10:00:00.000Z'),
        }),
        step('pause', { status: 'waiting', wakeAt: new Date('2026-12-01T10:00:05.000Z') }),
      ]),
    ).toEqual({ status: 'waiting', wakeAt: '2026-12-01T10:00:05.000Z', awaitsDecision: true });
    expect(wakeOf([step('ask', { status: 'waiting', state: { threadId: 'th-1' }, wakeAt: now })])).toEqual({
      status: 'waiting',
      wakeAt: null,
      awaitsDecision: true,
    });
  });

  it('counts an Agent step waiting for its retry as a wait on time', () => {
    const retryAt = new Date('2026-12-01T10:00:01.000Z');
    expect(wakeOf([step('ask', { status: 'waiting', error: 'boom', wakeAt: retryAt })])).toEqual({
      status: 'waiting',
      wakeAt: retryAt.toISOString(),
      awaitsDecision: false,
    });
  });

  it('reads a waiting step without a due time as due now, as the engine does', () => {
    expect(wakeOf([step('pause', { status: 'waiting' })]).wakeAt).toBe(new Date(0).toISOString());
  });

  it('answers nothing to wait for of a run that is not waiting, and unknown past retention', () => {
    const pending = [step('pause', { status: 'waiting', wakeAt: now })];
    expect(wakeOf(pending, { status: 'running' })).toEqual({
      status: 'running',
      wakeAt: null,
      awaitsDecision: false,
    });
    expect(wakeOf(pending, { createdAt: new Date('2026-10-01T10:00:00.000Z') })).toEqual({
      status: 'unknown',
      wakeAt: null,
      awaitsDecision: false,
    });
  });
});
