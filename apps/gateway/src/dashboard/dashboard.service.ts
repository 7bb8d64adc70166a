import { createLogger, DomainException } from '#common';
import {
  type AgentOverview,
  AgentSubjects,
  type CatalogOverview,
  CatalogSubjects,
  type DashboardDto,
  type DashboardStalePartDto,
  type EventsOverview,
  EventsSubjects,
  NAMES_MAX_IDS,
  type Principal,
  type RunnerOverview,
  RunnerSubjects,
  type WorkflowOverview,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

import { GatewayConfig } from '../gateway.config.js';

interface Answer<T> {
  value: T;
  asOf: Date;
}

interface Parts {
  projects: CatalogOverview;
  runs: RunnerOverview;
  workflows: WorkflowOverview;
  events: EventsOverview;
  agents: AgentOverview;
}

type ServicePart = keyof Parts;

interface Names {
  workflows: Record<string, string>;
  projects: Record<string, string>;
}

/** Phase one's share of the budget; the rest is left for the names. */
const PARTS_SHARE = 0.75;
/** Characters of last answers kept, all organizations together (their JSON length). */
const REMEMBERED_CHARACTERS = 64 * 1024 * 1024;

/** Only a service that is down or slow is covered for; any other failure is a fault to see. */
const isUnavailable = (error: unknown): error is DomainException =>
  error instanceof DomainException && error.code === 'service_unavailable';

const unique = (values: Iterable<string>) => [...new Set(values)].slice(0, NAMES_MAX_IDS);

/**
 * The dashboard, gathered from the five services that own its parts, asked in parallel, then the
 * current workflow and project names of what they listed, asked in parallel again. The whole answer
 * is bounded by `DASHBOARD_TIMEOUT_MS`: a part that does not come in time is shown as this gateway
 * last received it and listed in `stale`; a part never received answers 503, never an empty list.
 */
@Injectable()
export class DashboardService {
  private readonly logger = createLogger('gateway');
  private readonly answers: LRUCache<string, Answer<unknown>>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
  ) {
    this.answers = new LRUCache({
      maxSize: REMEMBERED_CHARACTERS,
      sizeCalculation: (answer) => Math.max(1, JSON.stringify(answer.value).length),
      ttl: Math.max(1, config.DASHBOARD_STALE_MAX_MS),
    });
  }

  async get(principal: Principal): Promise<DashboardDto> {
    const started = Date.now();
    const { parts, stale } = await this.parts(
      principal,
      Math.floor(this.config.DASHBOARD_TIMEOUT_MS * PARTS_SHARE),
    );
    const { projects, runs, workflows, events, agents } = parts;

    const workflowIds = unique([
      ...runs.runs.map((run) => run.workflowId),
      ...runs.failures.map((failure) => failure.workflowId),
      ...events.triggers.map((trigger) => trigger.workflowId),
      ...agents.approvals.map((approval) => approval.workflowId),
      ...(runs.held ?? []).map((group) => group.workflowId),
    ]);
    const projectIds = unique(runs.runs.map((run) => run.projectId));
    const namesTimeout = Math.max(100, this.config.DASHBOARD_TIMEOUT_MS - (Date.now() - started));
    const names = await this.names(principal, workflowIds, projectIds, namesTimeout);
    if (!names) stale.push({ part: 'names', asOf: null });
    // A workflow asked about and absent from the current names is deleted: its triggers are gone and
    // its runs were terminated, so nothing of it waits for anyone.
    const asked = new Set(workflowIds);
    const live = (workflowId: string) =>
      !names || !asked.has(workflowId) || Object.hasOwn(names.workflows, workflowId);
    const workflowName = (workflowId: string, recorded = '') => names?.workflows[workflowId] ?? recorded;

    const activity = projects.activity;
    return {
      activity,
      approvals: agents.approvals
        .filter((approval) => live(approval.workflowId))
        .map((approval) => ({
          ...approval,
          workflowName: workflowName(approval.workflowId, approval.workflowName),
        })),
      failures: runs.failures.map((failure) => ({
        ...failure,
        workflowName: workflowName(failure.workflowId, failure.workflowName),
      })),
      triggers: events.triggers
        .filter((trigger) => live(trigger.workflowId))
        .map((trigger) => ({ ...trigger, workflowName: workflowName(trigger.workflowId) })),
      // An events service of an earlier version answers without it.
      unhealthyConnections: events.unhealthyConnections ?? [],
      runs: runs.runs.map((run) => ({
        id: run.id,
        workflowId: run.workflowId,
        workflowName: workflowName(run.workflowId, run.workflowName),
        projectId: run.projectId,
        projectName: names?.projects[run.projectId] ?? '',
        trigger: run.trigger,
        status: run.status,
        createdAt: run.createdAt,
      })),
      // A runner of an earlier version answers without it.
      held: (runs.held ?? [])
        .filter((group) => live(group.workflowId))
        .map((group) => ({ ...group, workflowName: workflowName(group.workflowId, group.workflowName) })),
      counts: {
        projects: projects.projects,
        workflows: workflows.workflows,
        published: workflows.published,
        connections: events.connections,
        runsThisWeek: activity.reduce((sum, day) => sum + day.runs, 0),
      },
      stale: stale.sort((a, b) => a.part.localeCompare(b.part)),
    };
  }

  /** Every service's part, asked in parallel; 503 when a part came neither now nor before. */
  private async parts(
    principal: Principal,
    timeoutMs: number,
  ): Promise<{ parts: Parts; stale: DashboardStalePartDto[] }> {
    const requests: { [P in ServicePart]: Promise<Parts[P]> } = {
      projects: this.rpc.request(CatalogSubjects.overview, principal, {}, timeoutMs),
      runs: this.rpc.request(RunnerSubjects.overview, principal, {}, timeoutMs),
      workflows: this.rpc.request(WorkflowSubjects.overview, principal, {}, timeoutMs),
      events: this.rpc.request(EventsSubjects.overview, principal, {}, timeoutMs),
      agents: this.rpc.request(AgentSubjects.overview, principal, {}, timeoutMs),
    };
    const answers = await Promise.all(
      (Object.keys(requests) as ServicePart[]).map(
        async (part) => [part, await this.answerOf(principal, part, requests[part])] as const,
      ),
    );
    const missing = answers.filter(([, answer]) => answer === null).map(([part]) => part);
    if (missing.length > 0) {
      throw new DomainException(
        'service_unavailable',
        `The dashboard cannot be shown: ${missing.join(', ')} did not answer in time. Try again shortly.`,
        { parts: missing },
      );
    }
    const stale: DashboardStalePartDto[] = [];
    for (const [part, answer] of answers) {
      if (answer?.stale) stale.push({ part, asOf: answer.asOf.toISOString() });
    }
    const parts = Object.fromEntries(
      answers.map(([part, answer]) => [part, answer?.value]),
    ) as unknown as Parts;
    return { parts, stale };
  }

  /** The part as answered now, or as last answered (stale), or null when it never was. */
  private async answerOf<P extends ServicePart>(
    { organizationId }: Principal,
    part: P,
    request: Promise<Parts[P]>,
  ): Promise<(Answer<Parts[P]> & { stale: boolean }) | null> {
    const key = `${organizationId}\u0000${part}`;
    try {
      const answer = { value: await request, asOf: new Date() };
      this.answers.set(key, answer);
      return { ...answer, stale: false };
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      this.logger.warn({ part }, `dashboard part ${part} did not answer: ${error.message}`);
      const last = this.answers.get(key) as Answer<Parts[P]> | undefined;
      return last ? { ...last, stale: true } : null;
    }
  }

  private async names(
    principal: Principal,
    workflowIds: string[],
    projectIds: string[],
    timeoutMs: number,
  ): Promise<Names | null> {
    try {
      const [workflows, projects] = await Promise.all([
        workflowIds.length === 0
          ? { names: {} }
          : this.rpc.request(WorkflowSubjects.workflowNames, principal, { ids: workflowIds }, timeoutMs),
        projectIds.length === 0
          ? { names: {} }
          : this.rpc.request(CatalogSubjects.projectNames, principal, { ids: projectIds }, timeoutMs),
      ]);
      return { workflows: workflows.names, projects: projects.names };
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      this.logger.warn(`dashboard names did not answer: ${error.message}`);
      return null;
    }
  }
}
