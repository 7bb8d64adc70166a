/** How a delivery's attempts are spaced (docs/notifications.md, "Retries"). */
export interface RetrySchedule {
  maxAttempts: number;
  baseMs: number;
  maxDelayMs: number;
}

/**
 * The wait after failed attempt `attempt` (1 for the first) before the next, or null when it was the
 * last: `baseMs` doubled after each attempt, at most `maxDelayMs`, then spread by ±10 % so that the
 * deliveries an outage held back do not all come again in the same second.
 */
export function retryDelayMs(attempt: number, schedule: RetrySchedule, random = Math.random): number | null {
  if (attempt >= schedule.maxAttempts) return null;
  const delay = Math.min(schedule.maxDelayMs, schedule.baseMs * 2 ** (attempt - 1));
  return Math.round(delay * (0.9 + 0.2 * random()));
}
