import type { Schemas } from '../api/client';

type Run = Schemas['WorkflowRunDto'];
type Step = Schemas['RunStepDto'];
export type RunStatus = Run['status'];

/** The moves a run's status allows, as the runner decides them (docs/runs.md, "Run control"). */
export interface RunMoves {
  pause: boolean;
  resume: boolean;
  cancel: boolean;
  rerun: boolean;
}

/**
 * What the run page offers for a status. Pausing a pausing or paused run answers it as it is, so it is
 * not offered; a rolling-back run can neither be cancelled again nor rerun until it has ended; a run
 * past retention (`unknown`) has nothing left to rerun from.
 */
export function movesFor(status: RunStatus): RunMoves {
  return {
    pause: status === 'queued' || status === 'running' || status === 'waiting',
    resume: status === 'paused',
    cancel: ['queued', 'running', 'waiting', 'paused', 'waitingForPause'].includes(status),
    rerun: status === 'complete' || status === 'errored' || status === 'terminated',
  };
}

/**
 * A step's identity within its run. A compensation shares its node's id with the step it undid, so
 * the node id alone would merge the two (in React keys, and in the live stream's updates).
 */
export function stepKey(step: Pick<Step, 'nodeId' | 'compensation'>): string {
  return step.compensation ? `undo:${step.nodeId}` : step.nodeId;
}

/** Whether a cancel can roll back: some action of the run's diagram says how it is undone. */
export function hasCompensations(diagram: Run['diagram']): boolean {
  return diagram.nodes.some(
    ({ data }) =>
      data.type === 'action' &&
      typeof data.properties.compensate === 'object' &&
      data.properties.compensate !== null,
  );
}

/**
 * What a node of the run's diagram shows: its step's status, `carried` for a step a rerun carried
 * over, and once a rollback reached it, its compensation's: `undoing`, `undone` or `undo-failed`.
 */
export function nodeStatuses(steps: Step[]): Record<string, string> {
  const statuses: Record<string, string> = {};
  for (const step of steps) {
    if (step.compensation) {
      statuses[step.nodeId] =
        step.status === 'done' ? 'undone' : step.status === 'error' ? 'undo-failed' : 'undoing';
    } else if (!(step.nodeId in statuses)) {
      statuses[step.nodeId] = step.carriedFrom ? 'carried' : step.status;
    }
  }
  return statuses;
}

/** A node status in words, for the diagram's boxes. */
export function nodeStatusLabel(status: string): string {
  switch (status) {
    case 'carried':
      return 'carried over';
    case 'undo-failed':
      return 'undo failed';
    default:
      return status;
  }
}

/** The steps a rerun can start from: those the run executed or carried, once each, in run order. */
export function rerunStarts(steps: Step[]): string[] {
  return [...new Set(steps.filter((step) => !step.compensation).map((step) => step.nodeId))];
}

/** Where a rerun starts: the first failure, a chosen step, or the trigger with a new input. */
export type RerunFrom =
  { kind: 'failure' } | { kind: 'step'; nodeId: string } | { kind: 'input'; input: string };

/** The body of `POST /runs/{id}/rerun` for a choice. */
export function rerunBody(from: RerunFrom): Schemas['RerunRunDto'] {
  switch (from.kind) {
    case 'failure':
      return {};
    case 'step':
      return { fromNodeId: from.nodeId };
    case 'input':
      return { input: from.input };
  }
}

/** What the run is doing while it is neither running as usual nor ended, in a sentence. */
const CONTROL_STATES: Partial<Record<RunStatus, string>> = {
  paused:
    'Paused: nothing starts until it is resumed. Delays and approvals that fall due meanwhile are acted on at resume.',
  waitingForPause: 'Pausing: the steps already running finish, and none starts.',
  rollingBack: "Rolling back: the run's done actions are undone one at a time, newest first.",
};

export function controlState(status: RunStatus): string | null {
  return CONTROL_STATES[status] ?? null;
}
