import { type CancelRunDto, type Principal, type RerunRunDto, type WorkflowRunDto } from '#contracts';

/**
 * What a bulk operation does to one run: the runner's own run control, the methods behind
 * `POST /runs/{id}/cancel` and `POST /runs/{id}/rerun`, which throw a `DomainException` when the
 * action does not apply (`run_not_active`, `run_not_final`, …).
 */
export interface RunActions {
  cancel(principal: Principal, id: string, body: CancelRunDto): Promise<WorkflowRunDto>;
  rerun(principal: Principal, id: string, body: RerunRunDto): Promise<WorkflowRunDto>;
}

/** The Nest token of `RunActions`: `RunControlService` (docs/runs.md, "Run control"). */
export const RUN_ACTIONS = Symbol('RUN_ACTIONS');
