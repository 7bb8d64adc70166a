import { Cron } from 'croner';

/**
 * Schedules of `trigger` nodes. croner evaluates a cron expression in an IANA time zone and handles
 * daylight-saving changes: a fixed time that falls in a spring-forward gap runs at the first valid
 * time after it, and one that occurs twice in a fall-back runs once.
 */

export const DEFAULT_TIME_ZONE = 'UTC';

const CRON_FIELDS = 5;

/** Parsed expressions held, most recently used last: parsing one cost more than the next time it gives. */
const PARSED_MAX = 1_000;
const parsed = new Map<string, Cron>();

/** `cron` parsed for `timeZone`, held: a paused Cron only computes times, so one serves every caller. */
function cronOf(cron: string, timeZone: string): Cron {
  const key = `${timeZone} ${cron}`;
  let held = parsed.get(key);
  if (held) {
    parsed.delete(key);
  } else {
    held = new Cron(cron, { mode: '5-part', timezone: timeZone, paused: true });
    const oldest = parsed.keys().next();
    if (parsed.size >= PARSED_MAX && !oldest.done) parsed.delete(oldest.value);
  }
  parsed.set(key, held);
  return held;
}

/** Why `cron` is not a five-field expression, or null when it is one. */
export function cronProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== CRON_FIELDS) {
    return `cron must have five fields (minute hour day-of-month month day-of-week), not ${fields.length}`;
  }
  try {
    cronOf(cron, DEFAULT_TIME_ZONE);
    return null;
  } catch (error) {
    return `cron is not valid: ${(error as Error).message.replace(/^CronPattern:\s*/, '')}`;
  }
}

/** The first time strictly after `after` that `cron` matches in `timeZone`, or null if none ever does. */
export function nextScheduleTime(cron: string, timeZone: string, after: Date): Date | null {
  return cronOf(cron, timeZone).nextRun(after);
}

/**
 * The IANA zone name to store for `timeZone`, or null when it is not one. A name written in another
 * case is returned as the zone database spells it; UTC offsets such as `+02:00` are refused.
 */
export function canonicalTimeZone(timeZone: string): string | null {
  if (!/^[A-Za-z]/.test(timeZone)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  // ICU maps some links to another name (Asia/Kolkata → Asia/Calcutta); keep the caller's name then.
  return resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone;
}
