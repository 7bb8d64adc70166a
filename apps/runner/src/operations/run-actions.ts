import { type CancelRunDto, type Principal, type RerunRunDto, type WorkflowRunDto } from '#contracts';
import { DomainException } from '#common';
import { Injectable } from '@nestjs/common';

/**
 * What a bulk operation does to one run: the runner's own run control, the methods behind
 * `POST /runs/{id}/cancel` and `POST /runs/{id}/rerun`, which throw a `DomainException` when the
 * action does not apply (`run_not_active`, `run_not_final`, …).
 */
export interface RunActions {
  cancel(principal: Principal, id: string, body: CancelRunDto): Promise<WorkflowRunDto>;
  rerun(principal: Principal, id: string, body: RerunRunDto): Promise<WorkflowRunDto>;
}

/** The Nest token of `RunActions`: `RunControlService` once it is merged (docs/runs.md). */
export const RUN_ACTIONS = Symbol('RUN_ACTIONS');

/**
 * Stands in for `RunControlService` until run control is merged into this branch: every run an
 * operation acts on fails with this message, which says why. Replace the provider with
 * `{ provide: RUN_ACTIONS, useExisting: RunControlService }` then, and delete this class.
 */
@Injectable()
export class RunControlNotMerged implements RunActions {
  cancel(): Promise<WorkflowRunDto> {
    return Promise.reject(RunControlNotMerged.error());
  }

  rerun(): Promise<WorkflowRunDto> {
    return Promise.reject(RunControlNotMerged.error());
  }

  private static error(): DomainException {
    return new DomainException('internal', 'Run control (cancel and rerun) is not part of this build.');
  }
}
