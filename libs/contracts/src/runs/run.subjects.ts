import type { Page } from '#common';

import type { RunnerOverview } from '../dashboard/overview.messages.js';
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
import { type StartRunReply, StartRunRequest } from './start-run.request.js';
import type { WorkflowRunSummaryDto } from './workflow-run-summary.dto.js';
import type { WorkflowRunDto } from './workflow-run.dto.js';

export const RunnerSubjects = {
  /** Starts a run: the gateway for API runs, workflow for scheduled ones, events for app events. */
  runsStart: rpc('runner.runs.start', StartRunRequest, {
    callers: ['gateway', 'workflow', 'events'],
    reply: returns<StartRunReply<WorkflowRunDto>>(),
  }),
  /** Newest first. */
  runsList: rpc('runner.runs.list', ListRunsRequest, {
    callers: ['gateway'],
    reply: returns<Page<WorkflowRunSummaryDto>>(),
  }),
  /** The agent service asks too, to tell an unknown run from an unknown approval. */
  runsGet: rpc('runner.runs.get', IdRequest, {
    callers: ['gateway', 'agent'],
    reply: returns<WorkflowRunDto>(),
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
   * Workflows were deleted: their unfinished runs become `terminated`, and no run of them is recorded
   * any more, even by a start that read them before the delete. Idempotent.
   */
  runsTerminateForWorkflows: rpc('runner.runs.terminate-for-workflows', TerminateRunsRequest, {
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
} as const;

/** Run jobs: "advance this run from its checkpoints". Only the runner queues and takes them. */
export const RunJobsStream = jetStream('RUNS', {
  subject: 'runner.jobs.run',
  consumer: 'runner',
  publishers: ['runner'],
});
