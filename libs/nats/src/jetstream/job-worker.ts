import { setMaxListeners } from 'node:events';

import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';

import { SpanKind, inSpan } from '#common';

import { traceContextOf } from '../trace-context.js';

import { ExecutionSlots } from './execution-slots.js';
import type { JobDefinition, JobHandler, JobOutcome } from './job-definition.js';

export interface JobWorkerOptions {
  /** Jobs this process handles at once; it never pulls more than it has free slots for. */
  concurrency: number;
  /** Slots shared with other work of the process; by default the worker has `concurrency` of its own. */
  slots?: ExecutionSlots;
  /**
   * Shared slots the worker leaves to the process's other work: it pulls only while more than this
   * many are free (the runner keeps some for runs started while it is busy: docs/flow-control.md).
   * Read again before each pull.
   */
  reserved?: number | (() => number);
  /** How long one pull request waits for jobs before the next is sent (JetStream minimum 1000). */
  pullExpiresMs?: number;
}

/** How long a job whose handler threw waits before its next delivery: 1 s, 2 s, 4 s … up to a minute. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, deliveryCount - 1), 60_000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often a worker waiting for slots reads a changing reserve again. */
const RESERVE_RECHECK_MS = 250;

/**
 * Pulls jobs from a durable consumer and runs a handler for each, at most `concurrency` at a time.
 *
 * Each pull asks for exactly as many jobs as there are free slots, so no job waits in a local buffer
 * while its ack wait runs out (the failure mode of fetching a large batch of long jobs). While a
 * handler runs the job is kept with an in-progress ack every third of the ack wait, so a long step
 * never makes JetStream hand the job to someone else while its holder is alive.
 */
export class JobWorker<TPayload> {
  private stopping = false;
  private readonly inflight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly slots: ExecutionSlots;
  private pull?: ConsumerMessages;
  private loop?: Promise<void>;

  constructor(
    private readonly client: JetStreamClient,
    private readonly definition: JobDefinition<TPayload>,
    private readonly handler: JobHandler<TPayload>,
    private readonly options: JobWorkerOptions,
    private readonly logger: Logger,
  ) {
    this.slots = options.slots ?? new ExecutionSlots(options.concurrency);
    // Every job in flight may listen to the stop (a run hands itself back), and each removes its
    // listener when it ends: as many listeners as slots, by design, not a leak to warn about.
    setMaxListeners(0, this.abort.signal);
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Jobs being handled right now. */
  get busy(): number {
    return this.inflight.size;
  }

  /**
   * Stops pulling, lets running handlers finish for up to `graceMs`, then aborts the rest (their
   * handlers see `signal` and hand the job back for another worker).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.slots.wakeAll();
    this.pull?.stop();
    const settled = Promise.allSettled([...this.inflight]);
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([settled, timer])) === 'timeout') {
      this.abort.abort();
      await Promise.allSettled([...this.inflight]);
    }
    await this.loop;
  }

  private async run(): Promise<void> {
    let consumer: Consumer | undefined;
    let failures = 0;
    while (!this.stopping) {
      const { reserved: option = 0 } = this.options;
      const reserved = typeof option === 'function' ? option() : option;
      const free = this.slots.free - reserved;
      if (free <= 0) {
        // A reserve read from a function may drop while no slot frees (the runner's lasts while some
        // organization has a backlog), so it is read again every so often.
        await this.slots.whenFree(reserved, typeof option === 'function' ? RESERVE_RECHECK_MS : undefined);
        continue;
      }
      try {
        consumer ??= await this.client.consumers.get(this.definition.stream, this.definition.consumer);
        if (this.stopping) break;
        const expires = Math.max(1_000, this.options.pullExpiresMs ?? 10_000);
        this.pull = await consumer.fetch({
          max_messages: free,
          expires,
          // The default (half the expiry) lets a busy event loop mistake the pull's normal end for
          // missed heartbeats; the pull then fails client-side while JetStream may still deliver to
          // it, and such a job waits out its ack wait. Frequent heartbeats keep a wide margin.
          idle_heartbeat: Math.min(1_000, Math.floor(expires / 4)),
        });
        for await (const message of this.pull) {
          this.logger.debug(
            { job: this.definition.name, seq: message.seq, deliveryCount: message.info.deliveryCount },
            'job delivered',
          );
          if (this.stopping) {
            message.nak();
            continue;
          }
          this.dispatch(message);
        }
        failures = 0;
      } catch (error) {
        if (this.stopping) break;
        failures += 1;
        consumer = undefined;
        this.logger.warn({ err: error, job: this.definition.name }, 'pulling jobs failed; retrying');
        await sleep(Math.min(200 * 2 ** failures, 5_000));
      } finally {
        this.pull = undefined;
      }
    }
  }

  private dispatch(message: JsMsg): void {
    this.slots.take();
    const task: Promise<void> = this.handle(message)
      .catch((error: unknown) => {
        this.logger.error({ err: error, job: this.definition.name }, 'settling a job failed');
      })
      .finally(() => {
        this.inflight.delete(task);
        this.slots.release();
      });
    this.inflight.add(task);
  }

  private async handle(message: JsMsg): Promise<void> {
    const { definition } = this;
    const ping = setInterval(() => message.working(), Math.max(250, Math.floor(definition.ackWaitMs / 3)));
    const deliveryCount = message.info.deliveryCount;
    const lastDelivery = deliveryCount >= definition.maxDeliver;
    try {
      let payload: TPayload;
      try {
        payload = definition.parse(message.json());
      } catch (error) {
        this.logger.error({ err: error, job: definition.name }, 'dropping a job that cannot be read');
        message.term();
        return;
      }
      let outcome: JobOutcome;
      try {
        // A span per delivery, child of the context the job was published in (docs/tracing.md).
        outcome = await inSpan(
          `${definition.name} process`,
          {
            kind: SpanKind.CONSUMER,
            parent: traceContextOf(message.headers),
            attributes: {
              'messaging.system': 'nats',
              'messaging.destination.name': definition.subject,
              'messaging.operation.name': 'process',
              'messaging.message.delivery_count': deliveryCount,
            },
          },
          async (span) => {
            const outcome = await this.handler(payload, {
              deliveryCount,
              lastDelivery,
              signal: this.abort.signal,
            });
            span?.setAttribute('flowmesh.job.outcome', outcome.kind);
            return outcome;
          },
        );
      } catch (error) {
        this.logger.error(
          { err: error, job: definition.name, deliveryCount, lastDelivery },
          'job handler failed',
        );
        outcome = lastDelivery
          ? { kind: 'drop', reason: 'the handler failed on its last delivery' }
          : { kind: 'retry', delayMs: redeliveryDelayMs(deliveryCount) };
      }
      switch (outcome.kind) {
        case 'ack':
          message.ack();
          break;
        case 'retry':
          message.nak(outcome.delayMs);
          break;
        case 'drop':
          this.logger.warn({ job: definition.name, reason: outcome.reason }, 'dropping a job');
          message.term();
          break;
      }
    } finally {
      clearInterval(ping);
    }
  }
}
