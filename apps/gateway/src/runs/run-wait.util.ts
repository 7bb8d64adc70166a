import { RUN_STATUSES, type RunNextWake, type RunStatus } from '#contracts';

/**
 * Whether a wait that lasts until `deadline` (epoch ms) answers a run in this state now
 * (docs/runs.md, "Live runs"): the run is final (or `unknown`, past retention), `paused`, or
 * `waiting` on something that will not come before the deadline: a decision, or a delay or retry
 * due after it. A delay or retry due by then is waited through, as are the statuses that move on
 * by themselves.
 */
export function waitEnds(run: RunNextWake, deadline: number): boolean {
  switch (run.status) {
    case 'complete':
    case 'errored':
    case 'terminated':
    case 'unknown':
    case 'paused':
      return true;
    case 'waiting':
      return run.awaitsDecision || run.wakeAt === null || Date.parse(run.wakeAt) > deadline;
    case 'queued':
    case 'running':
    case 'waitingForPause':
    case 'rollingBack':
      return false;
  }
}

/** A notice of one of these may end a wait (those `waitEnds` can answer at): the wait reads the run again. */
export const WAIT_NOTICE_STATUSES: ReadonlySet<RunStatus> = new Set(
  RUN_STATUSES.filter((status) => waitEnds({ status, wakeAt: null, awaitsDecision: true }, 0)),
);
