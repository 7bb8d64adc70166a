import {
  DIAGRAM_ID_MAX_LENGTH,
  DIAGRAM_MAX_BYTES,
  DIAGRAM_MAX_NODES,
  RUN_INPUT_MAX_LENGTH,
} from '#contracts';

import type { StepRecord } from './run-state.js';

/**
 * How much text a step and a run may hold (docs/runs.md, "Limits"), in UTF-8 bytes. Every run a tenant
 * can write must come back whole in one NATS message, whose `max_payload` is 8 MiB where the service
 * is deployed: `runAnswerBoundBytes` below adds up the largest answer these limits allow.
 */
export interface RunLimits {
  /** One property once its templates are filled in. */
  propertyMaxBytes: number;
  /** A step's input as recorded: all its rendered properties together. */
  stepInputMaxBytes: number;
  /** A step's output fields together. */
  stepOutputMaxBytes: number;
  /** What a run keeps of its steps and its reply, counted as its answer carries them (JSON). */
  runDataMaxBytes: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** The longest step error kept, in characters: a message past it is cut (an engine error quoting a whole statement). */
export const STEP_ERROR_MAX_LENGTH = 4_000;

/** `"\n\n"` between two texts of the reply, as JSON carries it. */
const REPLY_SEPARATOR_BYTES = 4;

/** `1048576 bytes (1 MiB)`. */
export function bytesText(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes} bytes (${bytes / MIB} MiB)`;
  if (bytes >= KIB && bytes % KIB === 0) return `${bytes} bytes (${bytes / KIB} KiB)`;
  return `${bytes} bytes`;
}

/** The messages a step fails with past a limit: each names the node, and the property when there is one. */
export const limitFailures = {
  property: (nodeId: string, property: string, limit: number) =>
    `Node "${nodeId}": ${property} would be more than ${bytesText(limit)} with its templates filled in; that is the most one property may be.`,
  templates: (nodeId: string, property: string, limit: number) =>
    `Node "${nodeId}": its properties would be more than ${bytesText(limit)} together with their templates filled in (at ${property}); that is the most a step's input may be.`,
  input: (nodeId: string, bytes: number, limit: number) =>
    `Node "${nodeId}": its input would be ${bytes} bytes; a step's input may be at most ${bytesText(limit)}.`,
  output: (nodeId: string, bytes: number, limit: number) =>
    `Node "${nodeId}": its output is ${bytes} bytes; a step may keep at most ${bytesText(limit)} of output.`,
  run: (nodeId: string, bytes: number, limit: number) =>
    `Node "${nodeId}": with this step, the run would keep ${bytes} bytes of step inputs, outputs, errors and reply; a run may keep at most ${bytesText(limit)}.`,
};

/** The UTF-8 bytes of a step's output fields together. */
export function outputBytes(output: Readonly<Record<string, string>>): number {
  let bytes = 0;
  for (const value of Object.values(output)) bytes += Buffer.byteLength(value);
  return bytes;
}

/** A text or an output as the run's answer carries it: JSON, in UTF-8 bytes; nothing for null. */
export function answerBytes(value: string | Readonly<Record<string, string>> | null): number {
  return value === null ? 0 : Buffer.byteLength(JSON.stringify(value));
}

/**
 * What a step counts against its run's limit: its input, output and error as the answer carries
 * them, and its text once more when it ends the run, since the reply repeats it.
 */
export function keptBytes(
  step: Pick<StepRecord, 'input' | 'output' | 'error'>,
  replyText: string | null,
): number {
  const reply = replyText ? answerBytes(replyText) + REPLY_SEPARATOR_BYTES : 0;
  return answerBytes(step.input) + answerBytes(step.output) + answerBytes(step.error) + reply;
}

/** A step error as kept: at most STEP_ERROR_MAX_LENGTH characters. */
export function cutError(message: string): string {
  if (message.length <= STEP_ERROR_MAX_LENGTH) return message;
  const note = ` … (cut: the message is ${message.length} characters)`;
  let end = STEP_ERROR_MAX_LENGTH - note.length;
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(message.charAt(end - 1))) end -= 1;
  return `${message.slice(0, end)}${note}`;
}

/** The most bytes of JSON one character can take: a control character is written `\u0001`. */
const JSON_BYTES_PER_CHARACTER = 6;

/**
 * A step's fields other than its texts and ids, at their longest (`ms` a 32-bit integer), and the
 * comma after it. Its node id and the ids in `via` are the diagram's own and counted with it.
 */
const STEP_FIELDS_BYTES =
  JSON.stringify({
    nodeId: '',
    status: 'skipped',
    via: [],
    input: null,
    output: null,
    error: null,
    ms: 2 ** 31 - 1,
    startedAt: new Date(0).toISOString(),
  }).length + 1;

/** The run's own short fields (ids, status, times, version) and the reply envelope, generously. */
const RUN_FIELDS_BYTES = 8 * KIB;

/** The most characters of the message kept in a failed run's `errorWorkflow` (why none started). */
export const ERROR_WORKFLOW_MESSAGE_MAX_LENGTH = 500;

/**
 * A failed run's `errorWorkflow` at its longest: the workflow id as long as a diagram id may be, an
 * error code (a few dozen characters, 64 counted) and the message, every character at six bytes.
 */
const ERROR_WORKFLOW_BYTES =
  JSON.stringify({
    errorWorkflow: {
      workflowId: 'x'.repeat(JSON_BYTES_PER_CHARACTER * DIAGRAM_ID_MAX_LENGTH),
      runId: '00000000-0000-0000-0000-000000000000',
      error: {
        code: 'x'.repeat(64),
        message: 'x'.repeat(JSON_BYTES_PER_CHARACTER * ERROR_WORKFLOW_MESSAGE_MAX_LENGTH),
      },
      at: new Date(0).toISOString(),
    },
  }).length + 1;

/**
 * The largest answer of `runner.runs.get` (and of a start) that a run recorded under `limits` can
 * have, in bytes: its input at its longest, its diagram, whose ids its steps repeat, each step's
 * own fields, what the run keeps of its steps and reply, its error, and its `errorWorkflow`. With the
 * defaults this is 8,113,640 bytes, within an 8 MiB NATS message.
 */
export function runAnswerBoundBytes(limits: Pick<RunLimits, 'runDataMaxBytes'>): number {
  return (
    RUN_FIELDS_BYTES +
    (JSON_BYTES_PER_CHARACTER * RUN_INPUT_MAX_LENGTH + 2) +
    2 * DIAGRAM_MAX_BYTES +
    DIAGRAM_MAX_NODES * STEP_FIELDS_BYTES +
    limits.runDataMaxBytes +
    (JSON_BYTES_PER_CHARACTER * STEP_ERROR_MAX_LENGTH + 2) +
    ERROR_WORKFLOW_BYTES
  );
}
