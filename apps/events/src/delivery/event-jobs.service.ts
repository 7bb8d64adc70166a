import type { EventJob } from '#contracts';
import { JetStreamQueue, type JobDefinition } from '#nats';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';

import { EventsConfig } from '../events.config.js';
import { LOGGER } from '../events.tokens.js';
import { eventJob } from './event-job.js';

/** Publishes event jobs to the EVENTS stream, which exists before the service answers anything. */
@Injectable()
export class EventJobs implements OnModuleInit {
  readonly definition: JobDefinition<EventJob>;

  constructor(
    private readonly queue: JetStreamQueue,
    config: EventsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.definition = eventJob({ maxDeliver: config.EVENTS_MAX_DELIVER });
  }

  async onModuleInit(): Promise<void> {
    await this.queue.ensure(this.definition);
  }

  async publish(job: EventJob): Promise<void> {
    await this.queue.publish(this.definition, job);
  }

  /** For an event already stored: a failed publish is left to the sweeper, never to the sender. */
  publishSoon(job: EventJob): Promise<void> {
    return this.publish(job).catch((error: unknown) => {
      this.logger.warn(
        { err: error, eventId: job.eventId },
        'queueing an event failed; the sweeper retries it',
      );
    });
  }
}
