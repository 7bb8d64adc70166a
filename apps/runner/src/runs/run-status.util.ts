import { RUN_STATUS_RETENTION_DAYS, type RunStatus } from '#contracts';

const RETENTION_MS = RUN_STATUS_RETENTION_DAYS * 24 * 60 * 60 * 1000;

/** A run's live status is kept 30 days; afterwards it reads `unknown` (its steps remain). */
export function visibleStatus(stored: RunStatus, createdAt: Date, now: Date): RunStatus {
  return now.getTime() - createdAt.getTime() > RETENTION_MS ? 'unknown' : stored;
}
