import { isStale, scheduleIdempotencyKey, scheduleTriggers } from './schedule.util.js';

describe('scheduleTriggers', () => {
  it('lists the schedule triggers and nothing else', () => {
    const triggers = scheduleTriggers({
      nodes: [
        { id: 'a', data: { type: 'trigger', properties: { kind: 'schedule', cron: '0 9 * * *' } } },
        { id: 'b', data: { type: 'trigger', properties: { kind: 'manual' } } },
        { id: 'c', data: { type: 'delay', properties: { kind: 'schedule', cron: '* * * * *' } } },
        { id: 'd', data: { type: 'trigger', properties: { kind: 'schedule', cron: '*/5 * * * *' } } },
      ],
      edges: [],
    });
    expect(triggers).toEqual([
      { nodeId: 'a', cron: '0 9 * * *' },
      { nodeId: 'd', cron: '*/5 * * * *' },
    ]);
  });
});

describe('isStale', () => {
  const due = new Date('2026-01-01T09:00:00Z');

  it('keeps a due time within the grace period', () => {
    expect(isStale(due, new Date('2026-01-01T09:00:00Z'), 60_000)).toBe(false);
    expect(isStale(due, new Date('2026-01-01T09:01:00Z'), 60_000)).toBe(false);
  });

  it('drops one older than the grace period', () => {
    expect(isStale(due, new Date('2026-01-01T09:01:00.001Z'), 60_000)).toBe(true);
  });
});

it('keys a scheduled run by workflow, trigger and due time', () => {
  expect(scheduleIdempotencyKey('w', 't', new Date('2026-01-01T09:00:00Z'))).toBe(
    'schedule:w:t:2026-01-01T09:00:00.000Z',
  );
});
