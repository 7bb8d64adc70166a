import { DomainException, type Page } from '#common';
import {
  type AppEventDto,
  EVENT_PREVIEW_LENGTH,
  type EventOutcome,
  type ListWorkflowEventsRequest,
  type OutcomeDto,
  type Principal,
  type ReplayCandidatesReply,
  type ReplayCandidatesRequest,
  type ReplayEventRequest,
} from '#contracts';
import { isId, newId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { EventJobs } from '../delivery/event-jobs.service.js';
import type { AppEventRecord } from './app-event.mapper.js';
import { AppEventRepository } from './app-event.repository.js';
import type { OutcomeRecord } from './event-outcome.mapper.js';
import { EventOutcomeRepository } from './event-outcome.repository.js';

/** The first characters of a payload, counted in code points so no character is cut in half. */
export function previewOf(payload: string): string {
  return Array.from(payload.slice(0, EVENT_PREVIEW_LENGTH * 2))
    .slice(0, EVENT_PREVIEW_LENGTH)
    .join('');
}

/** Only decided outcomes are listed (`row.outcome` is set). */
const toOutcomeDto = (row: OutcomeRecord & { outcome: EventOutcome }): OutcomeDto => ({
  triggerNodeId: row.triggerNodeId,
  outcome: row.outcome,
  runId: row.runId,
  error: row.error,
  at: row.at.toISOString(),
});

const toAppEventDto = (event: AppEventRecord, outcomes: OutcomeRecord[]): AppEventDto => ({
  id: event.id,
  triggerId: event.trigger,
  preview: previewOf(event.payload),
  firedAt: event.firedAt.toISOString(),
  receivedAt: event.receivedAt.toISOString(),
  outcomes: outcomes.flatMap((row) =>
    row.outcome === null ? [] : [toOutcomeDto({ ...row, outcome: row.outcome })],
  ),
});

/** The Workflow app events routes. The gateway has checked that the workflow is the caller's. */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: AppEventRepository,
    private readonly outcomes: EventOutcomeRepository,
    private readonly jobs: EventJobs,
  ) {}

  async list(
    principal: Principal,
    { workflowId, query }: ListWorkflowEventsRequest,
  ): Promise<Page<AppEventDto>> {
    const { page, outcomes } = await this.events.listForWorkflow(principal.organizationId, workflowId, query);
    const byEvent = new Map<string, OutcomeRecord[]>();
    for (const outcome of outcomes)
      byEvent.set(outcome.eventId, [...(byEvent.get(outcome.eventId) ?? []), outcome]);
    return {
      data: page.data.map((event) => toAppEventDto(event, byEvent.get(event.id) ?? [])),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * Queues the event for one trigger; what it does is recorded as that trigger's outcome. A caller's
   * `replayId` names the job, so sending the same replay again queues it once.
   */
  async replay(
    principal: Principal,
    { workflowId, eventId, triggerNodeId, replayId }: ReplayEventRequest,
  ): Promise<{ queued: true }> {
    const event = isId(eventId) ? await this.events.findOwned(principal.organizationId, eventId) : null;
    if (!event || !(await this.outcomes.reached(event.id, workflowId))) {
      throw DomainException.notFound('event', eventId);
    }
    await this.jobs.publish({ eventId, workflowId, triggerNodeId, replayId: replayId ?? newId() });
    // After the job is queued, which is no transaction of this service's (docs/audit.md).
    await this.events.recordAudit(principal, {
      action: 'event.replayed',
      resource: { type: 'event', id: eventId, name: null },
      details: { workflowId, triggerNodeId, ...(replayId === undefined ? {} : { replayId }) },
    });
    return { queued: true };
  }

  /** The ids a bulk replay acts on (the runner's operations), newest first. */
  async replayCandidates(
    principal: Principal,
    request: ReplayCandidatesRequest,
  ): Promise<ReplayCandidatesReply> {
    if (request.beforeId !== undefined && !isId(request.beforeId)) return { ids: [] };
    return { ids: await this.outcomes.replayCandidates(principal.organizationId, request) };
  }
}
