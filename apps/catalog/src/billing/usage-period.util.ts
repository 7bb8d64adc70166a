/** The first day of the current UTC month: the period the run quota counts. */
export function currentPeriod(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

/** The UTC calendar day of `at`, `YYYY-MM-DD`. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** The last seven UTC calendar days up to and including the day of `now`, oldest first. */
export function lastSevenDays(now: Date): string[] {
  return Array.from({ length: 7 }, (_, index) => utcDay(new Date(now.getTime() - (6 - index) * DAY_MS)));
}
