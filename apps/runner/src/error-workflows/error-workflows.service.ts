import { DomainException } from '#common';
import { errorWorkflowIdOf, type ErrorWorkflowOutcome, servicePrincipal } from '#contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { type RunEnding, type RunEndingHandler, RunEndingHandlerProvider } from '../endings/run-ending.js';
import { ERROR_WORKFLOW_MESSAGE_MAX_LENGTH } from '../engine/run-limits.util.js';
import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { RunStarter } from '../start/run-starter.service.js';
import { errorWorkflowInput } from './error-workflow-input.util.js';
import { ErrorWorkflowRepository } from './error-workflow.repository.js';

/** Errors that say nothing about the error workflow itself: the start is tried again later. */
const PASSING_CODES: ReadonlySet<string> = new Set(['internal', 'service_unavailable']);

/** The idempotency key of the error workflow's run for a failed run: one run per failed run. */
export const errorWorkflowKey = (runId: string) => `error-workflow:${runId}`;

/**
 * Starts the error workflow of a run that ended `errored` (docs/workflows.md, "Error workflows"):
 * its live version, through `RunStarter` like any start (counted against the plan, refused when
 * paused or unpublished), with an input describing the failure and the idempotency key
 * `error-workflow:<runId>`, so a start sent again after a crash answers the run the first one made.
 * What came of it is written on the failed run (`errorWorkflow`). A run that was itself started as an
 * error workflow (`errorOfRunId`) starts none, so error workflows never start each other in a loop.
 * Called from the run endings outbox (docs/runs.md, "Reacting to a run's end").
 */
@Injectable()
@RunEndingHandlerProvider()
export class ErrorWorkflows implements RunEndingHandler {
  readonly name = 'error-workflow';

  constructor(
    private readonly runs: ErrorWorkflowRepository,
    private readonly starter: RunStarter,
    private readonly config: RunnerConfig,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Nothing unless the run is a failed run of a published version whose diagram names an error
   * workflow and whose failure was not handled yet. Throws only to be called again: the start could
   * not be made for a reason that may pass (a service unreachable, the database), until the outbox's
   * last attempt, which records that reason instead.
   */
  async handle({ status, run: ended, attempt }: RunEnding): Promise<void> {
    const { run } = ended;
    const workflowId = errorWorkflowIdOf(run.diagram);
    // A loop iteration's failure is its loop step's, which fails (or not) the run that has the error workflow.
    if (status !== 'errored' || workflowId === null || run.version === null || run.iteration !== null) return;
    if (run.errorWorkflow !== null) return;
    if (run.errorOfRunId !== null) {
      await this.record(run.id, workflowId, null, {
        code: 'error_workflow_run',
        message: `This run handles the failure of run ${run.errorOfRunId} (as its error workflow, or started by a run that does); its own failure starts no error workflow.`,
      });
      return;
    }
    let startedRunId: string;
    try {
      const { run: started } = await this.starter.start(
        servicePrincipal(run.organizationId),
        {
          workflowId,
          input: errorWorkflowInput(ended),
          draft: false,
          trigger: 'event',
          idempotencyKey: errorWorkflowKey(run.id),
        },
        { errorOfRunId: run.id },
      );
      startedRunId = started.id;
    } catch (error) {
      const refusal = refusalOf(error, attempt >= this.config.RUNNER_ENDINGS_MAX_ATTEMPTS);
      if (!refusal) throw error;
      this.logger.warn(
        { runId: run.id, errorWorkflowId: workflowId, code: refusal.code, reason: refusal.message },
        "a failed run's error workflow could not be started",
      );
      await this.record(run.id, workflowId, null, refusal);
      return;
    }
    // Outside the start's try: a record that fails is tried again (the start then replays its run),
    // never taken for a refused start.
    await this.record(run.id, workflowId, startedRunId, null);
  }

  private async record(
    runId: string,
    workflowId: string,
    startedRunId: string | null,
    error: ErrorWorkflowOutcome['error'],
  ): Promise<void> {
    await this.runs.recordOutcome(runId, {
      workflowId,
      runId: startedRunId,
      error: error && { code: error.code, message: cutMessage(error.message) },
      at: new Date().toISOString(),
    });
  }
}

/**
 * Why a start failed for good, as recorded on the failed run; null when it is to be tried again (a
 * service unreachable, the database) and this was not the last attempt.
 */
export function refusalOf(error: unknown, lastAttempt: boolean): ErrorWorkflowOutcome['error'] {
  const passing = !(error instanceof DomainException) || PASSING_CODES.has(error.code);
  if (!passing) return { code: error.code, message: error.message };
  if (!lastAttempt) return null;
  const reason = error instanceof Error ? error.message : String(error);
  return {
    code: error instanceof DomainException ? error.code : 'internal',
    message: `The error workflow could not be started, however often it was tried: ${reason}`,
  };
}

function cutMessage(message: string): string {
  const characters = Array.from(message);
  if (characters.length <= ERROR_WORKFLOW_MESSAGE_MAX_LENGTH) return message;
  return `${characters.slice(0, ERROR_WORKFLOW_MESSAGE_MAX_LENGTH - 1).join('')}…`;
}
