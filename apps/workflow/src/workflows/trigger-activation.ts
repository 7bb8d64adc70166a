import type { Diagram, Principal } from '#contracts';

export interface ActivatedWorkflow {
  workflowId: string;
  diagram: Diagram;
}

/**
 * Turning a version's app event triggers on and off, which the apps issue implements with the
 * app-connection service (publish rules 2 and 3, resume rules). `activate` runs before anything is
 * saved, on publish of an unpaused workflow and on resume; it may refuse with plan_limit_reached
 * (active app subscriptions) or subscription_failed, and then nothing changes. `deactivate` runs
 * after a pause, and when a deleted workflow is purged (again, until the purge succeeds). Both must be
 * idempotent: a publish whose save fails after `activate` (a deleted workflow, a crash) leaves its
 * subscriptions to the next publish or delete. Schedule
 * triggers need neither: the schedules table follows the live version by itself.
 */
export abstract class TriggerActivation {
  abstract activate(principal: Principal, workflow: ActivatedWorkflow): Promise<void>;
  /** `deleted`: the workflow is being purged, so its triggers are forgotten rather than stopped. */
  abstract deactivate(
    principal: Principal,
    workflowId: string,
    options?: { deleted?: boolean },
  ): Promise<void>;
}
