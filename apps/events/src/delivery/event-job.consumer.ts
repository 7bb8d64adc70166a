import type { EventJob } from '#contracts';
import { JetStreamQueue, type JobWorker } from '#nats';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';

import { EventsConfig } from '../events.config.js';
import { EventDelivery } from './event-delivery.service.js';
import { EventJobs } from './event-jobs.service.js';

/** The durable pull consumer of event jobs, shared by every replica. */
@Injectable()
export class EventJobConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker?: JobWorker<EventJob>;

  constructor(
    private readonly queue: JetStreamQueue,
    private readonly jobs: EventJobs,
    private readonly delivery: EventDelivery,
    private readonly config: EventsConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = this.queue.work(
      this.jobs.definition,
      (job, delivery) => this.delivery.handle(job, delivery),
      {
        concurrency: this.config.EVENTS_CONCURRENCY,
      },
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.stop();
  }
}
