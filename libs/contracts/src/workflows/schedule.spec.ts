import { canonicalTimeZone, cronProblem, nextScheduleTime } from './schedule.js';

describe('nextScheduleTime', () => {
  const after = (iso: string, cron: string, timeZone: string) =>
    nextScheduleTime(cron, timeZone, new Date(iso))?.toISOString();

  it('reads the cron in the time zone, on both sides of a daylight-saving change', () => {
    // New York moved from EST (UTC-5) to EDT (UTC-4) at 2025-03-09 07:00 UTC.
    expect(after('2025-03-08T12:00:00Z', '0 9 * * *', 'America/New_York')).toBe('2025-03-08T14:00:00.000Z');
    expect(after('2025-03-08T15:00:00Z', '0 9 * * *', 'America/New_York')).toBe('2025-03-09T13:00:00.000Z');
    expect(after('2025-03-08T12:00:00Z', '0 9 * * *', 'UTC')).toBe('2025-03-09T09:00:00.000Z');
  });

  it('runs a time that falls in the spring gap at the end of the gap', () => {
    expect(after('2025-03-08T12:00:00Z', '30 2 * * *', 'America/New_York')).toBe('2025-03-09T07:00:00.000Z');
  });

  it('runs a time that happens twice in the autumn once', () => {
    const first = after('2025-11-01T12:00:00Z', '30 1 * * *', 'America/New_York');
    expect(first).toBe('2025-11-02T05:30:00.000Z');
    expect(after(first!, '30 1 * * *', 'America/New_York')).toBe('2025-11-03T06:30:00.000Z');
  });

  it('answers strictly after the given time', () => {
    expect(after('2025-01-01T09:00:00Z', '0 9 * * *', 'UTC')).toBe('2025-01-02T09:00:00.000Z');
  });

  it('holds one parsed expression per zone: the same cron in two zones, read again, keeps both answers', () => {
    const answers = () => [
      after('2026-06-01T00:00:00Z', '0 9 * * *', 'UTC'),
      after('2026-06-01T00:00:00Z', '0 9 * * *', 'Asia/Tokyo'),
      after('2026-06-02T00:00:00Z', '0 9 * * *', 'UTC'),
    ];
    const expected = ['2026-06-01T09:00:00.000Z', '2026-06-02T00:00:00.000Z', '2026-06-02T09:00:00.000Z'];
    expect(answers()).toEqual(expected);
    expect(answers()).toEqual(expected);
  });
});

describe('cronProblem', () => {
  it.each(['* * * * *', '0 9 * * 1-5', '*/15 0-6 1,15 JAN-MAR MON'])('accepts %p', (cron) => {
    expect(cronProblem(cron)).toBeNull();
  });

  it.each([
    ['', 'five fields'],
    ['@hourly', 'five fields'],
    ['0 0 9 * * *', 'five fields'],
    ['60 * * * *', 'minute'],
    ['* 24 * * *', 'hour'],
    ['x * * * *', 'not valid'],
  ])('refuses %p', (cron, reason) => {
    expect(cronProblem(cron)).toContain(reason);
  });
});

describe('canonicalTimeZone', () => {
  it.each([
    ['UTC', 'UTC'],
    ['America/New_York', 'America/New_York'],
    ['america/new_york', 'America/New_York'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
  ])('accepts %p as %p', (input, stored) => {
    expect(canonicalTimeZone(input)).toBe(stored);
  });

  it.each(['', 'Mars/Olympus_Mons', '+02:00', '-05:00', 'Not a zone'])('refuses %p', (input) => {
    expect(canonicalTimeZone(input)).toBeNull();
  });
});
