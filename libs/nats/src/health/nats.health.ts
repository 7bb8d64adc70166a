import type { NatsConnection } from '@nats-io/transport-node';
import { Injectable } from '@nestjs/common';
import { type HealthCheckAttempt, HealthIndicatorService } from '@nestjs/terminus';

import type { JetStreamQueue } from '../jetstream/jetstream-queue.js';
import type { JobDefinition } from '../jetstream/job-definition.js';

/** A check that takes longer counts as down: a probe must not hang on a stalled server. */
export const NATS_CHECK_TIMEOUT_MS = 1_000;

@Injectable()
export class NatsHealthIndicator {
  constructor(private readonly indicators: HealthIndicatorService) {}

  /**
   * Up when a PING goes out on the connection and its PONG comes back. A connection's own state is
   * not enough: it still reads as open while it reconnects, and a stalled server never says so.
   */
  pingCheck<const Key extends string>(key: Key, connection: NatsConnection): HealthCheckAttempt<Key> {
    return this.indicators
      .check(key)
      .attempt(async () => {
        await connection.rtt();
      })
      .withTimeout(NATS_CHECK_TIMEOUT_MS);
  }

  /** Up when JetStream answers for the stream a job queue keeps its jobs in. */
  streamCheck<const Key extends string>(
    key: Key,
    queue: JetStreamQueue,
    definition: JobDefinition<unknown>,
  ): HealthCheckAttempt<Key> {
    return this.indicators
      .check(key)
      .attempt(async () => ({ stream: definition.stream, jobs: await queue.storedJobs(definition) }))
      .withTimeout(NATS_CHECK_TIMEOUT_MS);
  }
}
