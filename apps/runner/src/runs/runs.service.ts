import { DomainException, type Page } from '#common';
import {
  type ChildRunsQueryDto,
  type RunnerOverview,
  type RunsQueryDto,
  type Principal,
  type TerminateRunsReply,
  type WakeStepReply,
  type WorkflowRunDto,
  type WorkflowRunSummaryDto,
  type WorkflowRunsQueryDto,
  WorkflowSubjects,
} from '#contracts';
import { isId, mapPage, type PageRequest } from '#persistence';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { ChildRunRepository } from '../children/child-run.repository.js';
import { ChildWakes } from '../children/child-wakes.service.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import { RunChanges } from './run-changes.service.js';
import { type RunFilter, runFilterOf } from './run-filter.js';
import { visibleStatus } from './run-status.util.js';
import { toRunSummaryDto, toWorkflowRunDto } from './run-dto.util.js';
import { RunControlRepository } from './run-control.repository.js';
import { RunListRepository } from './run-list.repository.js';
import { RunRepository } from './run.repository.js';

const RECENT_RUNS = 10;
const RECENT_FAILURES = 20;
/** The dashboard's groups of held runs (docs/flow-control.md). */
const HELD_GROUPS = 20;
const FAILURES_WINDOW_MS = 7 * 86_400_000;

/** Reading runs, waking a waiting step, and ending the runs of a deleted workflow. */
@Injectable()
export class RunsService {
  constructor(
    private readonly runs: RunRepository,
    private readonly lists: RunListRepository,
    private readonly control: RunControlRepository,
    private readonly changes: RunChanges,
    private readonly rpc: RpcClient,
    private readonly jobs: RunJobs,
    private readonly childWakes: ChildWakes,
    private readonly children: ChildRunRepository,
  ) {}

  /** A page of the run's child runs, oldest first by iteration then creation. */
  async childrenOf(
    principal: Principal,
    id: string,
    query: ChildRunsQueryDto,
  ): Promise<Page<WorkflowRunSummaryDto>> {
    const now = new Date();
    const filter = {
      ...(query.nodeId === undefined ? {} : { nodeId: query.nodeId }),
      ...(query.status === undefined ? {} : { statuses: [...new Set(query.status)] }),
    };
    const page = isId(id) ? await this.children.page(principal.organizationId, id, filter, query, now) : null;
    if (!page) throw DomainException.notFound('run', id);
    return mapPage(page, (run) => toRunSummaryDto(run, now));
  }

  async get(principal: Principal, id: string): Promise<WorkflowRunDto> {
    const found = isId(id) ? await this.runs.find(principal.organizationId, id) : null;
    if (!found) throw DomainException.notFound('run', id);
    return toWorkflowRunDto(found);
  }

  /** Newest first. The workflow must exist in the caller's organization, so workflow is asked first. */
  async list(
    principal: Principal,
    workflowId: string,
    query: WorkflowRunsQueryDto,
  ): Promise<Page<WorkflowRunSummaryDto>> {
    await this.rpc.request(WorkflowSubjects.runTarget, principal, { workflowId, draft: true });
    return this.search(principal, runFilterOf(query, workflowId), query);
  }

  /** The organization's runs, newest first; an unknown `workflowId` simply matches nothing. */
  searchOrganization(principal: Principal, query: RunsQueryDto): Promise<Page<WorkflowRunSummaryDto>> {
    return this.search(principal, runFilterOf(query), query);
  }

  private async search(
    { organizationId }: Principal,
    filter: RunFilter,
    page: PageRequest,
  ): Promise<Page<WorkflowRunSummaryDto>> {
    const now = new Date();
    return mapPage(await this.lists.search(organizationId, filter, page, now), (run) =>
      toRunSummaryDto(run, now),
    );
  }

  /** The dashboard's recent runs and the steps that failed in the last 7 days. */
  async overview({ organizationId }: Principal, now = new Date()): Promise<RunnerOverview> {
    const [runs, failures, held] = await Promise.all([
      this.lists.recent(organizationId, RECENT_RUNS),
      this.lists.failures(organizationId, new Date(now.getTime() - FAILURES_WINDOW_MS), RECENT_FAILURES),
      this.lists.held(organizationId, HELD_GROUPS),
    ]);
    return {
      runs: runs.map((run) => ({
        ...run,
        status: visibleStatus(run.status, run.createdAt, now),
        createdAt: run.createdAt.toISOString(),
      })),
      failures: failures.map((failure) => ({ ...failure, at: failure.at.toISOString() })),
      held: held.map((group) => ({ ...group, oldestAt: group.oldestAt.toISOString() })),
    };
  }

  /** The step runs again now; the job is published after the wake is committed. */
  async wake(principal: Principal, runId: string, nodeId: string): Promise<WakeStepReply> {
    if (!isId(runId)) return { woken: true };
    const { woken, job } = await this.control.wakeStep(principal.organizationId, runId, nodeId);
    if (job) {
      this.changes.changed(runId, 'queued');
      await this.jobs.publishSoon(job);
    }
    return { woken };
  }

  async terminateForWorkflows(principal: Principal, workflowIds: string[]): Promise<TerminateRunsReply> {
    const { organizationId } = principal;
    const terminated = await this.control.terminateForWorkflows(organizationId, workflowIds);
    for (const run of terminated) {
      this.changes.changed(run.id, 'terminated');
      // A called workflow deleted while it ran fails the step of the run that called it.
      this.childWakes.ended({ ...run, organizationId });
    }
    return { terminated: terminated.length };
  }

  /** A paused workflow's scheduled runs written early never start: they end `terminated`, saying why. */
  async terminateScheduled(principal: Principal, workflowIds: string[]): Promise<TerminateRunsReply> {
    const terminated = await this.control.terminateScheduled(principal.organizationId, workflowIds);
    for (const runId of terminated) this.changes.changed(runId, 'terminated');
    return { terminated: terminated.length };
  }
}
