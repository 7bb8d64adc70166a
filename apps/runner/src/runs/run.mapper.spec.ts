import type { StepRecord } from '../engine/run-state.js';
import { heldOrSettled, type StepJson, toStepJson, toStepRecord } from './run.mapper.js';

const waitingStep: StepRecord = {
  nodeId: 'delay',
  position: 2,
  status: 'waiting',
  via: ['e1', 'e2'],
  input: 'in',
  output: null,
  error: 'boom',
  ms: null,
  startedAt: new Date('2026-11-27T10:00:00.000Z'),
  attempt: 2,
  route: null,
  state: { until: '2026-11-27T11:00:00.000Z' },
  wakeAt: new Date('2026-11-27T11:00:00.000Z'),
  compensation: false,
  carriedFrom: null,
  payloadTrimmedAt: null,
};

describe('run.mapper', () => {
  it('reads back a step it wrote as JSON, as Postgres answers it (timestamps as text)', () => {
    const json = JSON.parse(JSON.stringify(toStepJson('run-1', waitingStep))) as StepJson;
    expect(json).toMatchObject({ run_id: 'run-1', node_id: 'delay', wake_at: '2026-11-27T11:00:00.000Z' });
    expect(toStepRecord(json)).toEqual(waitingStep);
    const done = {
      ...waitingStep,
      status: 'done' as const,
      output: { result: 'x' },
      state: null,
      wakeAt: null,
    };
    expect(toStepRecord(toStepJson('run-1', done))).toEqual(done);
    const trimmed = { ...done, output: null, payloadTrimmedAt: new Date('2027-01-05T03:00:00.000Z') };
    const trimmedJson = JSON.parse(JSON.stringify(toStepJson('run-1', trimmed))) as StepJson;
    expect(trimmedJson.payload_trimmed_at).toBe('2027-01-05T03:00:00.000Z');
    expect(toStepRecord(trimmedJson)).toEqual(trimmed);
  });

  it('writes what a checkpoint changes about the run: the lease, and the outcome once settled', () => {
    const columns = (settlement: Parameters<typeof heldOrSettled>[0]) =>
      Object.keys(heldOrSettled(settlement, 60_000)).sort();
    expect(columns(undefined)).toEqual(['lease_expires_at', 'wake_at']);
    expect(heldOrSettled({ status: 'complete', reply: 'ok' }, 60_000)).toMatchObject({
      status: 'complete',
      reply: 'ok',
      lease_expires_at: null,
      wake_at: null,
    });
    expect(columns({ status: 'complete', reply: 'ok' })).not.toContain('error');
    expect(columns({ status: 'errored', error: 'x' })).toEqual(
      ['error', 'finished_at', 'lease_expires_at', 'status', 'wake_at'].sort(),
    );
    const wakeAt = new Date('2026-11-27T11:00:00.000Z');
    expect(heldOrSettled({ status: 'waiting', wakeAt }, 60_000)).toEqual({
      status: 'waiting',
      lease_expires_at: null,
      wake_at: wakeAt,
      claims: 0,
    });
  });
});
