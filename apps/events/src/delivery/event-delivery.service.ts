import { createHash } from 'node:crypto';

import { DomainException, type ErrorBody, mapConcurrently, toErrorBody } from '#common';
import {
  type EventJob,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  RunnerSubjects,
  servicePrincipal,
  type StartRunRequest,
  type StartRunsResult,
  STARTS_AT_ONCE_MAX,
} from '#contracts';
import { type JobDelivery, type JobOutcome, JobOutcomes, redeliveryDelayMs, RpcClient } from '#nats';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { ConnectionsService } from '../connections/connections.service.js';
import { LOGGER } from '../events.tokens.js';
import type { AppEventRecord, EventToFanOut } from '../events/app-event.mapper.js';
import { appEventDecided } from '../events/app-event.metrics.js';
import { AppEventRepository } from '../events/app-event.repository.js';
import type { DecidedOutcome, Listener, UndecidedOutcome } from '../events/event-outcome.mapper.js';
import { EventOutcomeRepository } from '../events/event-outcome.repository.js';
import type { Binding } from '../subscriptions/binding.mapper.js';
import { BindingRepository } from '../subscriptions/binding.repository.js';
import { matchesFilter, parsePayload } from '../subscriptions/event-filter.js';

/** Requests of many starts one fan-out keeps in flight. */
const START_REQUESTS_AT_ONCE = 2;

/**
 * The copies of an event's payload one request of many starts carries, at most: half of NATS'
 * default 1 MiB message, the rest left for the starts' other fields. A larger payload goes alone.
 */
const START_REQUEST_PAYLOAD_BYTES = 512 * 1024;

/** Run-start refusals that mean "nobody is listening any more" rather than a failure. */
const NOT_LISTENING = new Set(['workflow_paused', 'workflow_not_found', 'not_published']);

/** Failures worth another delivery of the job: the runner or the bus, not the event. */
const TRANSIENT = new Set(['service_unavailable', 'internal']);

/** Something went wrong that a later delivery of the job may not hit. */
class TryAgain extends Error {}

/**
 * The run an event starts for a trigger has this key, so however often the event is fanned out or
 * replayed (a crash, a redelivered job, two sweeps), the runner starts it once.
 */
export function eventRunKey(eventId: string, workflowId: string, triggerNodeId: string): string {
  const key = `event:${eventId}:${workflowId}:${triggerNodeId}`;
  if (key.length <= IDEMPOTENCY_KEY_MAX_LENGTH) return key;
  return `event:${eventId}:${workflowId}:#${createHash('sha256').update(triggerNodeId).digest('hex')}`;
}

function describe(error: ErrorBody['error']): string {
  const issues = (error.details?.issues ?? []) as Array<{ path?: string; message?: string }>;
  const detail = issues.map((issue) => [issue.path, issue.message].filter(Boolean).join(': ')).join('; ');
  return detail ? `${error.message} ${detail}` : error.message;
}

/**
 * Works through event jobs. A fan-out records, once, which triggers the event reaches (each with a
 * pending outcome), then decides each pending one: start a run, or say why not. A replay decides
 * one trigger again. Every decision is recorded when made, so a crash repeats only the undecided.
 */
@Injectable()
export class EventDelivery {
  constructor(
    private readonly events: AppEventRepository,
    private readonly outcomes: EventOutcomeRepository,
    private readonly bindings: BindingRepository,
    private readonly connections: ConnectionsService,
    private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async handle(job: EventJob, delivery: JobDelivery): Promise<JobOutcome> {
    try {
      if (job.replayId !== undefined && job.workflowId !== undefined && job.triggerNodeId !== undefined) {
        await this.replay(job.eventId, job.workflowId, job.triggerNodeId, delivery);
      } else {
        await this.fanOut(job.eventId, delivery);
      }
      return JobOutcomes.ack;
    } catch (error) {
      if (!(error instanceof TryAgain)) throw error;
      this.logger.warn({ eventId: job.eventId, reason: error.message }, 'event delivery deferred');
      return JobOutcomes.retry(redeliveryDelayMs(delivery.deliveryCount));
    }
  }

  /**
   * The first fan-out decides every listener and records them all in one statement; a later one
   * (after a crash, or when the runner could not answer) decides those still pending.
   */
  private async fanOut(eventId: string, delivery: JobDelivery): Promise<void> {
    const event = await this.events.forFanOut(eventId);
    if (!event) return; // past retention
    const payload = parsePayload(event.payload);
    const listening = new Map(
      event.bindings
        .filter((binding) => matchesFilter(binding.filter, payload))
        .map((binding) => [`${binding.workflowId}\u0000${binding.triggerNodeId}`, binding]),
    );
    const pending: Listener[] = event.listenersResolved
      ? await this.outcomes.pendingOutcomes(event.id)
      : [...listening.values()];
    const outcomes = await this.decideAll(event, payload, pending, listening, delivery);
    const decided = outcomes.filter((outcome): outcome is DecidedOutcome => outcome.outcome !== null);
    const firstRecorded =
      !event.listenersResolved &&
      (await this.outcomes.recordFirstFanOut(event.id, event.organizationId, outcomes));
    if (!firstRecorded) await this.outcomes.recordDecided(event.id, event.organizationId, decided);
    appEventDecided(decided);
    if (decided.length < outcomes.length) throw new TryAgain('the runner did not answer for every trigger');
  }

  /**
   * Decides the listeners: those the event still reaches have their runs started together, a few
   * requests of many starts (`runsStartMany`) at a time; one the runner could not answer for stays
   * undecided.
   */
  private async decideAll(
    event: EventToFanOut,
    payload: unknown,
    pending: Listener[],
    listening: Map<string, Binding>,
    delivery: JobDelivery,
  ): Promise<Array<DecidedOutcome | UndecidedOutcome>> {
    const outcomes = new Array<DecidedOutcome | UndecidedOutcome>(pending.length);
    const starting: number[] = [];
    for (const [index, { workflowId, triggerNodeId }] of pending.entries()) {
      const binding = listening.get(`${workflowId}\u0000${triggerNodeId}`);
      const refusal = await this.refusalOf(event, payload, workflowId, triggerNodeId, binding);
      if (refusal) outcomes[index] = refusal;
      else starting.push(index);
    }
    const requests = startRequestsOf(starting, Buffer.byteLength(event.payload));
    await mapConcurrently(requests, START_REQUESTS_AT_ONCE, async (indexes) => {
      const starts = indexes.map((index) => startOf(event, pending[index]));
      let results: StartRunsResult[];
      try {
        ({ results } = await this.rpc.request(
          RunnerSubjects.runsStartMany,
          servicePrincipal(event.organizationId),
          { starts },
        ));
      } catch (error) {
        if (!(error instanceof DomainException)) throw error;
        results = starts.map(() => toErrorBody(error));
      }
      results.forEach((result, place) => {
        const index = indexes[place];
        const listener = pending[index];
        outcomes[index] =
          'error' in result
            ? (this.startRefused(listener, result.error, delivery) ?? { ...listener, outcome: null })
            : { ...listener, outcome: 'started', runId: result.runId };
      });
    });
    return outcomes;
  }

  private async replay(
    eventId: string,
    workflowId: string,
    triggerNodeId: string,
    delivery: JobDelivery,
  ): Promise<void> {
    const event = await this.events.find(eventId);
    if (!event) return; // past retention
    const earlier = await this.outcomes.outcomeOf(event.id, workflowId, triggerNodeId);
    if (earlier?.outcome === 'started') return;
    const [binding] = await this.bindings.find(event.organizationId, workflowId, [triggerNodeId]);
    const decided = await this.decide(
      event,
      parsePayload(event.payload),
      workflowId,
      triggerNodeId,
      binding,
      delivery,
    );
    await this.outcomes.recordDecided(event.id, event.organizationId, [decided]);
    appEventDecided([decided]);
  }

  /** What the event does for one trigger: start its run, or the reason it does not. */
  private async decide(
    event: Pick<AppEventRecord, 'id' | 'organizationId' | 'connectionId' | 'trigger' | 'payload'>,
    payload: unknown,
    workflowId: string,
    triggerNodeId: string,
    binding: Binding | undefined,
    delivery: JobDelivery,
  ): Promise<DecidedOutcome> {
    const listener = { workflowId, triggerNodeId };
    const refusal = await this.refusalOf(event, payload, workflowId, triggerNodeId, binding);
    if (refusal) return refusal;
    try {
      const { run } = await this.rpc.request(
        RunnerSubjects.runsStart,
        servicePrincipal(event.organizationId),
        startOf(event, listener),
      );
      return { ...listener, outcome: 'started', runId: run.id };
    } catch (error) {
      if (!(error instanceof DomainException)) throw error;
      const outcome = this.startRefused(listener, error, delivery);
      if (!outcome) throw new TryAgain(error.message);
      return outcome;
    }
  }

  /** Why the event starts no run for this trigger any more, before the runner is asked; null when it does. */
  private async refusalOf(
    event: Pick<AppEventRecord, 'connectionId' | 'trigger'>,
    payload: unknown,
    workflowId: string,
    triggerNodeId: string,
    binding: Binding | undefined,
  ): Promise<DecidedOutcome | null> {
    const listener = { workflowId, triggerNodeId };
    const listens =
      binding !== undefined &&
      binding.connectionId === event.connectionId &&
      binding.trigger === event.trigger &&
      matchesFilter(binding.filter, payload);
    if (!listens || binding.status === 'stopped') return { ...listener, outcome: 'no_listener' };
    if (binding.status === 'error') return { ...listener, outcome: 'dead', error: binding.error };
    const connection = await this.connections.open(event.connectionId);
    if (!connection) return { ...listener, outcome: 'dead', error: 'The connection was deleted.' };
    if (connection.health !== 'healthy') {
      return { ...listener, outcome: 'dead', error: 'The connection is unhealthy.' };
    }
    return null;
  }

  /** The outcome of a start the runner refused; null when a later delivery of the job should try again. */
  private startRefused(
    listener: Listener,
    error: ErrorBody['error'],
    delivery: JobDelivery,
  ): DecidedOutcome | null {
    if (error.code === 'plan_limit_reached') return { ...listener, outcome: 'limit_reached' };
    if (NOT_LISTENING.has(error.code)) return { ...listener, outcome: 'no_listener' };
    if (TRANSIENT.has(error.code) && !delivery.lastDelivery) return null;
    return { ...listener, outcome: 'error', error: `The run could not be started: ${describe(error)}` };
  }
}

/** The start of the run an event makes for one trigger. */
function startOf(
  event: Pick<AppEventRecord, 'id' | 'payload'>,
  { workflowId, triggerNodeId }: Listener,
): StartRunRequest {
  return {
    workflowId,
    input: event.payload,
    draft: false,
    triggerNodeId,
    trigger: 'event',
    idempotencyKey: eventRunKey(event.id, workflowId, triggerNodeId),
  };
}

/**
 * The starts of a fan-out split into requests: at most `STARTS_AT_ONCE_MAX` each, and no more copies
 * of the payload than fit `START_REQUEST_PAYLOAD_BYTES`, so a request stays within a NATS message.
 */
export function startRequestsOf(indexes: readonly number[], payloadBytes: number): number[][] {
  const perRequest = Math.max(
    1,
    Math.min(STARTS_AT_ONCE_MAX, Math.floor(START_REQUEST_PAYLOAD_BYTES / Math.max(1, payloadBytes))),
  );
  const requests: number[][] = [];
  for (let at = 0; at < indexes.length; at += perRequest) requests.push(indexes.slice(at, at + perRequest));
  return requests;
}
