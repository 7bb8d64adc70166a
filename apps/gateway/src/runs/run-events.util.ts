import type { RunStatus, RunStepDto, WorkflowRunDto } from '#contracts';

/** One Server-Sent Event: its name and one line of JSON (JSON text never holds a raw newline). */
export const sseEvent = (name: string, data: unknown): string =>
  `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** A comment line: EventSource ignores it, proxies see traffic. */
export const SSE_HEARTBEAT = ': keep-alive\n\n';

/** A run in one of these will not change again: its stream ends. `unknown` is a run past retention. */
export const STREAM_END_STATUSES: ReadonlySet<RunStatus> = new Set([
  'complete',
  'errored',
  'terminated',
  'unknown',
]);

/** A step's identity in its run: a compensation shares its node's id with the step it undid. */
const stepKey = (step: RunStepDto): string => (step.compensation ? `undo:${step.nodeId}` : step.nodeId);

/**
 * What a stream has sent of a run, and the events that bring a client from there to a newer read:
 * a `step` for each step whose record differs from the one sent (in start order), then a `status`
 * when the run's status moved.
 */
export class SentRun {
  private readonly steps = new Map<string, string>();
  private status: RunStatus;

  constructor(first: WorkflowRunDto) {
    this.status = first.status;
    for (const step of first.steps) this.steps.set(stepKey(step), JSON.stringify(step));
  }

  eventsTo(run: WorkflowRunDto): string[] {
    const events: string[] = [];
    for (const step of run.steps) {
      const text = JSON.stringify(step);
      if (this.steps.get(stepKey(step)) === text) continue;
      this.steps.set(stepKey(step), text);
      events.push(`event: step\ndata: ${text}\n\n`);
    }
    if (run.status !== this.status) {
      this.status = run.status;
      events.push(sseEvent('status', { id: run.id, status: run.status, reply: run.reply, error: run.error }));
    }
    return events;
  }
}
