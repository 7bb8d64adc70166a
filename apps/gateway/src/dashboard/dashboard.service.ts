import { DomainException } from '#common';
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
import { Injectable, Logger } from '@nestjs/common';
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
/** Last answers kept: a few parts for each of this many organizations. */
const REMEMBERED_ANSWERS = 50_000;

const unique = (values: Iterable<string>) => [...new Set(values)].slice(0, NAMES_MAX_IDS);

/**
 * The dashboard, gathered from the five services that own its parts, asked in parallel, then the
 * current workflow and project names of what they listed, asked in parallel again. The whole answer
 * is bounded by `DASHBOARD_TIMEOUT_MS`: a part that does not come in time is shown as this gateway
 * last received it and listed in `stale`; a part never received answers 503, never an empty list.
 */
@Injectable()
export class DashboardService {
  private readonly logger = new Logger(DashboardService.name);
  private readonly answers: LRUCache<string, Answer<unknown>>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
  ) {
    this.answers = new LRUCache({ max: REMEMBERED_ANSWERS, ttl: Math.max(1, config.DASHBOARD_STALE_MAX_MS) });
  }

  async get(principal: Principal): Promise<DashboardDto> {
    const started = Date.now();
    const partsTimeout = Math.floor(this.config.DASHBOARD_TIMEOUT_MS * PARTS_SHARE);
    const ask = <P extends ServicePart>(part: P, request: (timeoutMs: number) => Promise<Parts[P]>) =>
      this.answerOf(principal, part, request(partsTimeout));
    const [projects, runs, workflows, events, agents] = await Promise.all([
      ask('projects', (timeout) => this.rpc.request(CatalogSubjects.overview, principal, {}, timeout)),
      ask('runs', (timeout) => this.rpc.request(RunnerSubjects.overview, principal, {}, timeout)),
      ask('workflows', (timeout) => this.rpc.request(WorkflowSubjects.overview, principal, {}, timeout)),
      ask('events', (timeout) => this.rpc.request(EventsSubjects.overview, principal, {}, timeout)),
      ask('agents', (timeout) => this.rpc.request(AgentSubjects.overview, principal, {}, timeout)),
    ]);
    const missing = (
      [
        ['projects', projects],
        ['runs', runs],
        ['workflows', workflows],
        ['events', events],
        ['agents', agents],
      ] as const
    ).filter(([, answer]) => answer === null);
    if (missing.length > 0 || !projects || !runs || !workflows || !events || !agents) {
      const parts = missing.map(([part]) => part);
      throw new DomainException(
        'service_unavailable',
        `The dashboard cannot be shown: ${parts.join(', ')} did not answer in time. Try again shortly.`,
        { parts },
      );
    }
    const stale: DashboardStalePartDto[] = [];
    for (const [part, answer] of [
      ['projects', projects],
      ['runs', runs],
      ['workflows', workflows],
      ['events', events],
      ['agents', agents],
    ] as const) {
      if (answer.stale) stale.push({ part, asOf: answer.asOf.toISOString() });
    }

    const workflowIds = unique([
      ...runs.value.runs.map((run) => run.workflowId),
      ...runs.value.failures.map((failure) => failure.workflowId),
      ...events.value.triggers.map((trigger) => trigger.workflowId),
      ...agents.value.approvals.map((approval) => approval.workflowId),
    ]);
    const projectIds = unique(runs.value.runs.map((run) => run.projectId));
    const namesTimeout = Math.max(100, this.config.DASHBOARD_TIMEOUT_MS - (Date.now() - started));
    const names = await this.names(principal, workflowIds, projectIds, namesTimeout);
    if (!names) stale.push({ part: 'names', asOf: null });
    // With current names known, a workflow absent from them is deleted: its triggers are gone and its
    // runs were terminated, so nothing of it waits for anyone.
    const live = (workflowId: string) => !names || Object.hasOwn(names.workflows, workflowId);
    const workflowName = (workflowId: string, recorded = '') => names?.workflows[workflowId] ?? recorded;

    const activity = projects.value.activity;
    return {
      activity,
      approvals: agents.value.approvals
        .filter((approval) => live(approval.workflowId))
        .map((approval) => ({
          ...approval,
          workflowName: workflowName(approval.workflowId, approval.workflowName),
        })),
      failures: runs.value.failures.map((failure) => ({
        ...failure,
        workflowName: workflowName(failure.workflowId, failure.workflowName),
      })),
      triggers: events.value.triggers
        .filter((trigger) => live(trigger.workflowId))
        .map((trigger) => ({ ...trigger, workflowName: workflowName(trigger.workflowId) })),
      runs: runs.value.runs.map((run) => ({
        id: run.id,
        workflowId: run.workflowId,
        workflowName: workflowName(run.workflowId, run.workflowName),
        projectId: run.projectId,
        projectName: names?.projects[run.projectId] ?? '',
        trigger: run.trigger,
        status: run.status,
        createdAt: run.createdAt,
      })),
      counts: {
        projects: projects.value.projects,
        workflows: workflows.value.workflows,
        published: workflows.value.published,
        connections: events.value.connections,
        runsThisWeek: activity.reduce((sum, day) => sum + day.runs, 0),
      },
      stale: stale.sort((a, b) => a.part.localeCompare(b.part)),
    };
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
      this.logger.warn(`dashboard part ${part} did not answer: ${(error as Error).message}`);
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
      this.logger.warn(`dashboard names did not answer: ${(error as Error).message}`);
      return null;
    }
  }
}
