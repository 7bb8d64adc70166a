import { PeriodicTask } from '#common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Gauge } from 'prom-client';
import type { Logger } from 'pino';

import type { JetStreamQueue } from '../jetstream/jetstream-queue.js';
import type { JobDefinition } from '../jetstream/job-definition.js';

/**
 * The job queues' backlog, per stream and durable consumer, polled from JetStream's consumer info
 * every `METRICS_POLL_MS` by each service that consumes the stream. Every replica reports the same
 * shared consumer: aggregate with `max by (stream, consumer)`, not `sum`.
 */
const labelNames = ['stream', 'consumer'] as const;
const pending = new Gauge({
  name: 'flowmesh_jetstream_consumer_pending_messages',
  help: 'Jobs in the stream not yet delivered to the consumer.',
  labelNames,
});
const ackPending = new Gauge({
  name: 'flowmesh_jetstream_consumer_ack_pending_messages',
  help: 'Jobs delivered to the consumer and not yet acknowledged (being worked on).',
  labelNames,
});
const redelivered = new Gauge({
  name: 'flowmesh_jetstream_consumer_redelivered_messages',
  help: 'Jobs delivered more than once and not yet acknowledged (a worker died or ran out of ack wait).',
  labelNames,
});

/** Default poll interval, `METRICS_POLL_MS` of ServiceConfig. */
export const DEFAULT_METRICS_POLL_MS = 15_000;

/** Polls the consumer info of a service's job queues into the gauges above. */
export class JetStreamMetrics implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly queue: JetStreamQueue,
    private readonly definitions: () => readonly JobDefinition<unknown>[],
    intervalMs: number,
    logger: Logger,
  ) {
    this.task = new PeriodicTask(
      intervalMs,
      () => this.poll(),
      (error) => logger.warn({ err: error }, 'could not read the job consumers for the metrics'),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  private async poll(): Promise<void> {
    for (const definition of this.definitions()) {
      const backlog = await this.queue.consumerBacklog(definition);
      const labels = { stream: definition.stream, consumer: definition.consumer };
      pending.set(labels, backlog.pending);
      ackPending.set(labels, backlog.ackPending);
      redelivered.set(labels, backlog.redelivered);
    }
  }
}
