import { DomainException } from '#common';
import { type RunCancelledEvent, RunnerSubjects } from '#contracts';
import type { OnModuleDestroy, Provider } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { EVERY_KEY, subscribeEvent } from './events.js';
import { NATS_CONNECTION } from './service-wiring.module.js';

interface Work {
  organizationId: string;
  controller: AbortController;
}

/**
 * Cancels remembered, so that work reaching a service after its run's cancel (the notice overtook the
 * step's request, which goes through the runner's retries and the service's queue) is stopped as it
 * starts. Bounded: the oldest are forgotten first, and none is kept past its time; a cancelled run's
 * steps are never sent later than that.
 */
const REMEMBERED_CANCELS = 10_000;
const REMEMBER_CANCEL_MS = 10 * 60_000;

/** The notice as the runner sends it; anyone who may publish it could send something else. */
export function isRunCancelledEvent(payload: unknown): payload is RunCancelledEvent {
  if (typeof payload !== 'object' || payload === null) return false;
  const { runId, organizationId, message } = payload as Record<string, unknown>;
  return (
    typeof runId === 'string' &&
    runId !== '' &&
    typeof organizationId === 'string' &&
    organizationId !== '' &&
    typeof message === 'string'
  );
}

/**
 * The work a service does for runs' steps (an app action, a model call, a SQL batch), by run id, so
 * that a run's cancel (`RunnerSubjects.runCancelled`) stops it: the work's signal aborts with
 * `DomainException.runCancelled(<the cancel's message>)` as its reason. Only work of the cancel's
 * organization is stopped. An entry lives while its work runs, so with no cancel this costs a map
 * entry per step in flight and nothing else.
 *
 * The notice is core NATS: a service that is not connected when it is sent (a reconnect) misses it and
 * finishes the work, whose answer the runner drops.
 */
export class RunCancellations implements OnModuleDestroy {
  private readonly inFlight = new Map<string, Set<Work>>();
  /** Recent cancels by run id, oldest first. */
  private readonly cancelled = new Map<string, { organizationId: string; message: string; at: number }>();
  private readonly listeners: Array<(event: RunCancelledEvent) => unknown> = [];
  private readonly subscription: Subscription;

  constructor(
    connection: NatsConnection,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.subscription = subscribeEvent(
      connection,
      RunnerSubjects.runCancelled,
      (payload) => this.cancel(payload),
      EVERY_KEY,
    );
  }

  /** Listens on the app's own connection (`NATS_CONNECTION`). */
  static provider(logger: Pick<Logger, 'warn'>): Provider {
    return {
      provide: RunCancellations,
      inject: [NATS_CONNECTION],
      useFactory: (connection: NatsConnection) => new RunCancellations(connection, logger),
    };
  }

  /**
   * Runs `work` with a signal that aborts when run `runId` of `organizationId` is cancelled; work of a
   * run cancelled before it arrived does not start, and fails as its cancel says. Work
   * that names no run gets a signal of its own that never aborts (one shared by every such work would
   * collect their listeners).
   */
  async during<T>(
    runId: string | undefined,
    organizationId: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (runId === undefined) return work(new AbortController().signal);
    const earlier = this.cancelledEarlier(runId, organizationId);
    if (earlier !== undefined) throw DomainException.runCancelled(earlier);
    const entry: Work = { organizationId, controller: new AbortController() };
    let works = this.inFlight.get(runId);
    if (!works) this.inFlight.set(runId, (works = new Set()));
    works.add(entry);
    try {
      return await work(entry.controller.signal);
    } finally {
      works.delete(entry);
      if (works.size === 0) this.inFlight.delete(runId);
    }
  }

  /** Also tells `listener` of each valid cancel, for what is not work in flight (pending approvals). */
  onCancel(listener: (event: RunCancelledEvent) => unknown): void {
    this.listeners.push(listener);
  }

  /** How many runs have work in flight here. */
  get runsInFlight(): number {
    return this.inFlight.size;
  }

  onModuleDestroy(): void {
    this.subscription.unsubscribe();
  }

  private cancel(payload: unknown): void {
    if (!isRunCancelledEvent(payload)) {
      this.logger.warn(
        { subject: RunnerSubjects.runCancelled.name },
        'a run-cancelled notice that is not valid was ignored',
      );
      return;
    }
    this.remember(payload);
    const reason = DomainException.runCancelled(payload.message);
    for (const work of [...(this.inFlight.get(payload.runId) ?? [])]) {
      if (work.organizationId === payload.organizationId) work.controller.abort(reason);
    }
    for (const listener of this.listeners) {
      // A listener that throws or rejects is logged; it stops neither the others nor the process.
      void Promise.resolve(payload)
        .then(listener)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, runId: payload.runId }, 'a run-cancelled listener failed'),
        );
    }
  }

  private remember({ runId, organizationId, message }: RunCancelledEvent): void {
    this.cancelled.delete(runId);
    this.cancelled.set(runId, { organizationId, message, at: Date.now() });
    for (const [oldest, { at }] of this.cancelled) {
      if (this.cancelled.size <= REMEMBERED_CANCELS && Date.now() - at <= REMEMBER_CANCEL_MS) break;
      this.cancelled.delete(oldest);
    }
  }

  /** The message of a cancel of this run heard before its work arrived, if any. */
  private cancelledEarlier(runId: string, organizationId: string): string | undefined {
    const earlier = this.cancelled.get(runId);
    if (!earlier || earlier.organizationId !== organizationId) return undefined;
    if (Date.now() - earlier.at > REMEMBER_CANCEL_MS) {
      this.cancelled.delete(runId);
      return undefined;
    }
    return earlier.message;
  }
}
