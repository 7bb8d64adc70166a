import type { RunStatus } from './run-status.js';

/**
 * `RunnerSubjects.runsNextWake`: what a run waits for, so that a wait of the gateway (docs/runs.md,
 * "Live runs") can tell a `waiting` run that will move on by itself before the wait's end from one
 * that will not. Internal: no route answers it.
 */
export interface RunNextWake {
  /** The run's status, as `runs.get` answers it. */
  status: RunStatus;
  /**
   * When the earliest delay or retry among its waiting steps falls due (ISO 8601), or null when no
   * step waits on time alone. Set only while the run is `waiting`.
   */
  wakeAt: string | null;
  /**
   * A step waits on someone's decision (an Agent step's approval): nothing is due at a known time
   * before the decision, whose expiry may be days away. Set only while the run is `waiting`.
   */
  awaitsDecision: boolean;
}
