import { type ErrorWorkflowInput, RUN_INPUT_MAX_LENGTH } from '#contracts';

import type { RunWithSteps, StepRecord } from '../engine/run-state.js';
import { rollsBackOnError } from '../engine/rollback.util.js';

/**
 * The most JSON characters the run's error and the failed step's error each take in the input. A
 * step's error is at most 4,000 characters, but a rolled-back run's error adds a line per failed
 * compensation, and JSON may write a character as six (`\u0001`).
 */
export const ERROR_TEXT_MAX_JSON_LENGTH = 16_000;

/**
 * The input of the error workflow's run for this failed run (`ErrorWorkflowInput`, as JSON text).
 * It must fit a run's input (RUN_INPUT_MAX_LENGTH): the failed run's own input gets what the rest
 * leaves, cut if it needs more (`run.inputTruncated`). Only stored fields are read, so the same failed
 * run always gives the same text: a start sent again after a crash is the same request, and its
 * idempotency key answers the run the first one made.
 */
export function errorWorkflowInput({ run, steps }: RunWithSteps): string {
  const error = run.error ?? 'The run failed.';
  const failed = failedStepOf(steps, error);
  const input: ErrorWorkflowInput = {
    workflow: { id: run.workflowId, name: run.workflowName, version: run.version, projectId: run.projectId },
    run: {
      id: run.id,
      trigger: run.trigger,
      triggerNodeId: run.triggerNodeId,
      startedAt: run.createdAt.toISOString(),
      input: '',
      inputTruncated: false,
      rolledBack: rollsBackOnError(run.diagram),
    },
    failedStep: failed && {
      nodeId: failed.nodeId,
      type: run.diagram.nodes.find((node) => node.id === failed.nodeId)?.data.type ?? 'unknown',
      error: cutForJson(failed.error ?? '', ERROR_TEXT_MAX_JSON_LENGTH),
      attempt: failed.attempt,
    },
    error: cutForJson(error, ERROR_TEXT_MAX_JSON_LENGTH),
  };
  // What the run's input may take: the limit less everything else ("" already counts its quotes).
  const room = RUN_INPUT_MAX_LENGTH - JSON.stringify(input).length;
  const fitted = prefixWithin(run.input, room);
  input.run.input = fitted;
  input.run.inputTruncated = fitted.length < run.input.length;
  return JSON.stringify(input);
}

/**
 * The step whose failure failed the run: its error is the run's (a rolled-back run's error begins
 * with it and goes on with the compensations that failed). Null when no step's is, as when the run
 * was stopped for being interrupted too often.
 */
function failedStepOf(steps: readonly StepRecord[], runError: string): StepRecord | null {
  return (
    [...steps]
      .filter((step) => !step.compensation && step.status === 'error' && step.error !== null)
      .sort((a, b) => a.position - b.position)
      .find((step) => runError === step.error || runError.startsWith(`${step.error ?? ''}\n`)) ?? null
  );
}

/** `text`, cut with a note of its whole length when its JSON would be longer than `max`. */
export function cutForJson(text: string, max: number): string {
  if (JSON.stringify(text).length <= max) return text;
  const note = ` … (cut: ${text.length} characters in all)`;
  return `${prefixWithin(text, max - JSON.stringify(note).length)}${note}`;
}

/**
 * The longest start of `text` whose JSON text, less its two quotes, is at most `room` characters;
 * never half a surrogate pair.
 */
export function prefixWithin(text: string, room: number): string {
  if (JSON.stringify(text).length - 2 <= room) return text;
  let used = 0;
  let end = 0;
  for (const character of text) {
    used += JSON.stringify(character).length - 2;
    if (used > room) break;
    end += character.length;
  }
  return text.slice(0, end);
}
