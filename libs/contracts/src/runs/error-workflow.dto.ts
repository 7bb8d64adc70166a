import { ApiProperty } from '@nestjs/swagger';

import type { RunTrigger } from './start-run.request.js';

/**
 * The input of a run started as an error workflow (docs/workflows.md, "Error workflows"), as JSON
 * text: `{{trigger.failedStep.nodeId}}` and the like read it. Built only from what the failed run
 * stored, so building it again after a crash gives the same text (and the same idempotent start).
 */
export interface ErrorWorkflowInput {
  /** `version`: the version that failed; null would be a draft, whose runs start no error workflow. */
  workflow: { id: string; name: string; version: number | null; projectId: string };
  run: {
    id: string;
    trigger: RunTrigger;
    triggerNodeId: string | null;
    /** When the failed run was created (ISO 8601). */
    startedAt: string;
    /** The failed run's input, cut when longer than the error workflow's input may carry. */
    input: string;
    inputTruncated: boolean;
    /** The diagram said `onError: "rollback"`: compensations ran before the run ended (their failures are in `error`). */
    rolledBack: boolean;
  };
  /** The step whose failure failed the run; null when no step did (the run was interrupted too often). */
  failedStep: { nodeId: string; type: string; error: string; attempt: number } | null;
  /** The failed run's `error`. */
  error: string;
}

/** Why a failed run's error workflow did not start: the start's error, as the API would answer it. */
export class ErrorWorkflowRefusalDto {
  @ApiProperty({
    description:
      'The error code the start answered (`not_published`, `workflow_not_found`, `workflow_paused`, `plan_limit_reached`, `invalid_workflow`, `trigger_required`, …).',
  })
  code!: string;

  @ApiProperty()
  message!: string;
}

/** What starting a failed run's error workflow came to; written once per failed run. */
export class ErrorWorkflowOutcomeDto {
  @ApiProperty({ description: "The error workflow the failed run's diagram named." })
  workflowId!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The error workflow run it started (its `errorOfRunId` names this run); null when none could start.',
  })
  runId!: string | null;

  @ApiProperty({
    type: ErrorWorkflowRefusalDto,
    nullable: true,
    description: 'Why no error workflow run could start; null when one started.',
  })
  error!: ErrorWorkflowRefusalDto | null;

  @ApiProperty({ format: 'date-time', description: 'When the runner handled the failure.' })
  at!: string;
}

/** `ErrorWorkflowOutcomeDto` as the runner stores it (`runner.runs.error_workflow`). */
export type ErrorWorkflowOutcome = ErrorWorkflowOutcomeDto;
