import type { Page } from '#common';

import { type AuditListReply, AuditListRequest } from '../audit/audit.messages.js';
import type { RunnerOverview } from '../dashboard/overview.messages.js';
import { BulkRunsDto } from '../operations/bulk-runs.dto.js';
import type { OperationDto } from '../operations/operation.dto.js';
import { ReplayEventsRequest, SearchRunsRequest } from '../operations/operation.messages.js';
import { EmptyRequest, IdRequest } from '../messaging/common-requests.js';
import { event, jetStream, returns, rpc } from '../messaging/subject-catalog.js';
import {
  ListRunsRequest,
  type RunChangedEvent,
  TerminateRunsRequest,
  type TerminateRunsReply,
  WakeStepRequest,
  type WakeStepReply,
} from './run.messages.js';
import type { RunNextWake } from './run-next-wake.js';
import { ListChildRunsRequest } from './child-runs.dto.js';
import {
  type StartRunReply,
  StartRunRequest,
  type StartRunsReply,
  StartRunsRequest,
} from './start-run.request.js';
import {
  CancelRunRequest,
  type RunCancelledEvent,
  type RunPauseRequestedEvent,
  RerunRunRequest,
} from './run-control.dto.js';
import type { WorkflowRunSummaryDto } from './workflow-run-summary.dto.js';
import type { WorkflowRunDto } from './workflow-run.dto.js';

export const RunnerSubjects = {
  /** Starts a run: the gateway for API runs, workflow for scheduled ones, events for app events. */
  runsStart: rpc('runner.runs.start', StartRunRequest, {
    callers: ['gateway', 'workflow', 'events'],
    reply: returns<StartRunReply<WorkflowRunDto>>(),
  }),
  /**
   * Starts many runs of one organization's published workflows at once, through the queue: one
   * request, one count and one write for them all (the scheduler's due times of a tick, an app
   * event's fan-out).
   */
  runsStartMany: rpc('runner.runs.start-many', StartRunsRequest, {
    callers: ['workflow', 'events'],
    reply: returns<StartRunsReply>(),
  }),
  /** Newest first. */
  runsList: rpc('runner.runs.list', ListRunsRequest, {
    callers: ['gateway'],
    reply: returns<Page<WorkflowRunSummaryDto>>(),
  }),
  /** The organization's runs, newest first, filtered (docs/runs.md, "Finding and acting on many runs"). */
  runsSearch: rpc('runner.runs.search', SearchRunsRequest, {
    callers: ['gateway'],
    reply: returns<Page<WorkflowRunSummaryDto>>(),
  }),
  /** Accepts a bulk cancel or rerun: the matching runs are recorded, and the runner's workers act on them. */
  operationsBulkRuns: rpc('runner.operations.bulk-runs', BulkRunsDto, {
    callers: ['gateway'],
    reply: returns<OperationDto>(),
  }),
  /** Accepts a bulk replay of a trigger's stored events; the events service is asked which ones. */
  operationsReplayEvents: rpc('runner.operations.replay-events', ReplayEventsRequest, {
    callers: ['gateway'],
    reply: returns<OperationDto>(),
  }),
  operationsGet: rpc('runner.operations.get', IdRequest, {
    callers: ['gateway'],
    reply: returns<OperationDto>(),
  }),
  /**
   * A run's child runs (called workflows, loop iterations), oldest first by iteration then creation
   * (docs/runs.md, "Child runs"); `run_not_found` for a run that is not the caller's.
   */
  runsChildren: rpc('runner.runs.children', ListChildRunsRequest, {
    callers: ['gateway'],
    reply: returns<Page<WorkflowRunSummaryDto>>(),
  }),
  /** The agent service asks too, to tell an unknown run from an unknown approval. */
  runsGet: rpc('runner.runs.get', IdRequest, {
    callers: ['gateway', 'agent'],
    reply: returns<WorkflowRunDto>(),
  }),
  /**
   * What a run waits for (`RunNextWake`): the gateway's waits ask it of a `waiting` run, to wait
   * through a delay or retry that falls due before they end.
   */
  runsNextWake: rpc('runner.runs.next-wake', IdRequest, {
    callers: ['gateway'],
    reply: returns<RunNextWake>(),
  }),
  /** An approval was decided: the waiting Agent step runs again now instead of at its expiry. */
  runsWake: rpc('runner.runs.wake', WakeStepRequest, {
    callers: ['agent'],
    reply: returns<WakeStepReply>(),
  }),
  /** The dashboard's recent runs and the steps that failed in the last 7 days, from indexes. */
  overview: rpc('runner.overview.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<RunnerOverview>(),
  }),
  /**
   * Cancels a run (docs/runs.md, "Run control"): `terminated`, or `rollingBack` first with
   * `rollback`. 409 `run_not_active` when it is final or already rolling back.
   */
  runsCancel: rpc('runner.runs.cancel', CancelRunRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowRunDto>(),
  }),
  /** `waitingForPause` while steps in flight finish, then `paused`; `paused` at once when nothing runs. */
  runsPause: rpc('runner.runs.pause', IdRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowRunDto>(),
  }),
  /** A `paused` run goes on from its checkpoints; 409 `run_not_paused` otherwise. */
  runsResume: rpc('runner.runs.resume', IdRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowRunDto>(),
  }),
  /** A new run of the same version (or stored draft), from a step, the first failure, or a new input. */
  runsRerun: rpc('runner.runs.rerun', RerunRunRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowRunDto>(),
  }),
  /**
   * Workflows were deleted: their unfinished runs become `terminated`, and no run of them is recorded
   * any more, even by a start that read them before the delete. Idempotent.
   */
  runsTerminateForWorkflows: rpc('runner.runs.terminate-for-workflows', TerminateRunsRequest, {
    callers: ['workflow'],
    reply: returns<TerminateRunsReply>(),
  }),
  /**
   * Terminates the workflows' scheduled runs written before their due time and still held for it
   * (`heldBy: schedule`), sent by workflow once a pause has committed: a paused workflow starts no
   * scheduled run, even one written a few seconds early (docs/workflows.md).
   */
  runsTerminateScheduled: rpc('runner.runs.terminate-scheduled', TerminateRunsRequest, {
    callers: ['workflow'],
    reply: returns<TerminateRunsReply>(),
  }),
  /**
   * A run or its steps changed (`RunChangedEvent`), on one subject per run, so the gateway's waits and
   * streams (docs/runs.md, "Live runs") listen to the runs they watch and nothing else. The benchmarks
   * listen to every run's (`….run-changed.*`) to see runs end. Nothing depends on receiving one.
   */
  runChanged: event('runner.events.run-changed', {
    listeners: ['gateway'],
    payload: returns<RunChangedEvent>(),
    keyed: true,
  }),
  /**
   * A run was cancelled (`RunCancelledEvent`, on `….run-cancelled.<runId>`): the runner holding it
   * stops, and every service working on one of its steps stops that work. The cancel is committed
   * before this is sent, so a service that misses it only finishes work whose result is dropped.
   */
  runCancelled: event('runner.events.run-cancelled', {
    listeners: ['runner', 'events', 'agent', 'database'],
    payload: returns<RunCancelledEvent>(),
    keyed: true,
  }),
  /** A running run is `waitingForPause`: its holder starts no new step (it also learns at its next write). */
  runPauseRequested: event('runner.events.run-pause-requested', {
    listeners: ['runner'],
    payload: returns<RunPauseRequestedEvent>(),
    keyed: true,
  }),
  /** A page of this service's audit entries for the gateway's `GET /api/v1/audit`, which merges them. */
  auditList: rpc('runner.audit.list', AuditListRequest, {
    callers: ['gateway'],
    reply: returns<AuditListReply>(),
  }),
} as const;

/** Run jobs: "advance this run from its checkpoints". Only the runner queues and takes them. */
export const RunJobsStream = jetStream('RUNS', {
  subject: 'runner.jobs.run',
  consumer: 'runner',
  publishers: ['runner'],
});
