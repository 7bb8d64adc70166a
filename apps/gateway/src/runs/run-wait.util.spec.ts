import { RUN_STATUSES, type RunNextWake } from '#contracts';

import { WAIT_NOTICE_STATUSES, waitEnds } from './run-wait.util.js';

describe('waitEnds', () => {
  const deadline = Date.parse('2026-12-01T10:00:10.000Z');
  const waiting = (wake: Partial<RunNextWake>): RunNextWake => ({
    status: 'waiting',
    wakeAt: null,
    awaitsDecision: false,
    ...wake,
  });

  it.each(['complete', 'errored', 'terminated', 'unknown'] as const)('ends at a final run (%s)', (status) => {
    expect(waitEnds({ status, wakeAt: null, awaitsDecision: false }, deadline)).toBe(true);
  });

  it('ends at a paused run, which moves only when someone resumes it', () => {
    expect(waitEnds({ status: 'paused', wakeAt: null, awaitsDecision: false }, deadline)).toBe(true);
  });

  it('ends at a run waiting on a decision, even when its expiry or another step is due before the deadline', () => {
    expect(waitEnds(waiting({ awaitsDecision: true }), deadline)).toBe(true);
    expect(waitEnds(waiting({ awaitsDecision: true, wakeAt: '2026-12-01T10:00:02.000Z' }), deadline)).toBe(
      true,
    );
  });

  it('waits through a delay or retry due before the deadline, or at it, or already due', () => {
    expect(waitEnds(waiting({ wakeAt: '2026-12-01T10:00:02.000Z' }), deadline)).toBe(false);
    expect(waitEnds(waiting({ wakeAt: '2026-12-01T10:00:10.000Z' }), deadline)).toBe(false);
    expect(waitEnds(waiting({ wakeAt: '2026-12-01T09:00:00.000Z' }), deadline)).toBe(false);
  });

  it('ends at once at a delay or retry due after the deadline: nothing changes before it', () => {
    expect(waitEnds(waiting({ wakeAt: '2026-12-01T10:00:10.001Z' }), deadline)).toBe(true);
    expect(waitEnds(waiting({ wakeAt: '2026-12-04T10:00:00.000Z' }), deadline)).toBe(true);
  });

  it('ends at a waiting run with nothing due: nothing will wake it', () => {
    expect(waitEnds(waiting({}), deadline)).toBe(true);
  });

  it.each(['queued', 'running', 'waitingForPause', 'rollingBack'] as const)(
    'goes on while the run moves by itself (%s)',
    (status) => {
      expect(waitEnds({ status, wakeAt: null, awaitsDecision: false }, deadline)).toBe(false);
    },
  );

  it('reads the run again at a notice of each status that may end a wait, and of no other', () => {
    expect(RUN_STATUSES.filter((status) => WAIT_NOTICE_STATUSES.has(status))).toEqual([
      'paused',
      'errored',
      'terminated',
      'complete',
      'waiting',
      'unknown',
    ]);
  });
});
