import { FINAL_RUN_STATUSES, type RunStatus } from '#contracts';

/**
 * Whether a run's approvals can still be decided: not once it has ended (`complete`, `errored`,
 * `terminated`), is rolling back after a cancel or a failure, or is no longer known. A paused run's
 * can: the decision is kept and the step acts on it when the run resumes.
 */
export function isDecidable(status: RunStatus): boolean {
  return !FINAL_RUN_STATUSES.includes(status) && status !== 'rollingBack' && status !== 'unknown';
}
