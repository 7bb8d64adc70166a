import { DomainException, PeriodicTask } from '#common';
import type { NotificationAttemptDto } from '#contracts';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Logger } from 'pino';

import { ConnectionsService } from '../connections/connections.service.js';
import { EventsConfig } from '../events.config.js';
import { LOGGER } from '../events.tokens.js';
import { httpCredentialsOf, noOriginsYet } from '../integrations/http.provider.js';
import type { AttemptRecord, ClaimedDelivery } from './notification-delivery.mapper.js';
import { NotificationDeliveryRepository } from './notification-delivery.repository.js';
import { NotificationEndpointsService } from './notification-endpoints.service.js';
import { type NotificationAttempt, NotificationSender } from './notification-sender.js';
import { retryDelayMs, type RetrySchedule } from './retry-schedule.js';

const RETENTION_BATCH = 5_000;

/**
 * Sends the notifications that are due, from every replica. Each tick claims as many due deliveries
 * as this process has room for (SKIP LOCKED: replicas never take the same one) and sends them without
 * holding a transaction; each attempt's outcome is recorded when it ends, with the next attempt's time
 * or the final status. A process that dies mid-attempt leaves its claim to expire, and the delivery
 * is attempted again then: every delivery is made at least once, so receivers dedupe on `webhook-id`.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly poll: PeriodicTask;
  private readonly retention: PeriodicTask;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly schedule: RetrySchedule;
  private readonly leaseMs: number;
  /** The last claim took all it had room for: more may be due, so a finished attempt looks again. */
  private moreDue = false;

  constructor(
    private readonly deliveries: NotificationDeliveryRepository,
    private readonly endpoints: NotificationEndpointsService,
    private readonly connections: ConnectionsService,
    private readonly sender: NotificationSender,
    private readonly config: EventsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.schedule = {
      maxAttempts: config.NOTIFICATIONS_MAX_ATTEMPTS,
      baseMs: config.NOTIFICATIONS_RETRY_BASE_MS,
      maxDelayMs: config.NOTIFICATIONS_RETRY_MAX_DELAY_MS,
    };
    // Twice an attempt's time limit: the attempt is over by then, recorded or lost with its process.
    this.leaseMs = config.NOTIFICATIONS_TIMEOUT_MS * 2;
    const failed = (what: string) => (error: unknown) =>
      logger.warn({ err: error }, `${what} failed; trying again`);
    this.poll = new PeriodicTask(
      config.NOTIFICATIONS_POLL_INTERVAL_MS,
      async () => {
        await this.dispatchDue();
      },
      failed('sending due notifications'),
    );
    this.retention = new PeriodicTask(
      config.EVENTS_RETENTION_INTERVAL_MS,
      async () => {
        await this.deleteExpired();
      },
      failed('deleting expired notification deliveries'),
    );
  }

  onApplicationBootstrap(): void {
    this.poll.start();
    this.retention.start();
  }

  /** Stops claiming, and ends the attempts in flight: each is recorded, to be made again at once. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.poll.stop(), this.retention.stop()]);
    this.stopping.abort(
      new DomainException('service_unavailable', 'The service stopped during the attempt.'),
    );
    await this.settled();
  }

  /** Looks for due deliveries now rather than at the next tick (a run has just ended). */
  kick(): void {
    this.poll.kick();
  }

  /** Claims the due deliveries there is room for and starts their attempts; answers how many. */
  async dispatchDue(): Promise<number> {
    const room = this.config.NOTIFICATIONS_CONCURRENCY - this.inFlight.size;
    if (room <= 0) {
      this.moreDue = true;
      return 0;
    }
    const claimed = await this.deliveries.claimDue(room, this.leaseMs, this.schedule.maxAttempts);
    this.moreDue = claimed.length === room;
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, deliveryId: delivery.id },
            'a notification attempt failed to record',
          ),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          if (this.moreDue) this.poll.kick();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** Resolves once every attempt started so far is recorded. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  async deleteExpired(): Promise<number> {
    let total = 0;
    for (let deleted = RETENTION_BATCH; deleted === RETENTION_BATCH; total += deleted) {
      deleted = await this.deliveries.deleteExpired(RETENTION_BATCH);
    }
    if (total > 0) this.logger.info({ deliveries: total }, 'deleted notification deliveries past retention');
    return total;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    const target = await this.target(delivery);
    // Its endpoint was deleted since the claim, and its deliveries with it.
    if (target === null) return;
    const sent =
      'refused' in target
        ? { responseStatus: null, error: target.refused }
        : await this.sender.send(target.attempt);
    const outcome = {
      attempt: delivery.attempt,
      at: startedAt.toISOString(),
      ...sent,
      durationMs: Date.now() - startedAt.getTime(),
    };
    const final = 'refused' in target && target.final;
    const recorded = await this.deliveries.recordAttempt(delivery, this.decide(delivery, outcome, final));
    if (!recorded) {
      this.logger.warn(
        { deliveryId: delivery.id },
        'a notification attempt outlived its claim; not recorded',
      );
    }
  }

  /**
   * Where and how the attempt goes; or why it cannot, and whether it never will; null when the
   * endpoint is gone.
   */
  private async target(
    delivery: ClaimedDelivery,
  ): Promise<{ attempt: NotificationAttempt } | { refused: string; final: boolean } | null> {
    const endpoint = await this.endpoints.open(delivery.endpointId);
    if (!endpoint) return null;
    const connection = await this.connections.open(endpoint.connectionId);
    if (!connection || connection.organizationId !== endpoint.organizationId) {
      return { refused: "The endpoint's connection was deleted; nothing was sent.", final: true };
    }
    const attempt: NotificationAttempt = {
      deliveryId: delivery.id,
      body: delivery.body,
      url: endpoint.url,
      secret: endpoint.secret,
      signal: this.stopping.signal,
    };
    if (connection.integrationId !== 'http') return { attempt };
    const { headers, origins, held } = httpCredentialsOf(connection.credentials);
    if (!held) return { attempt };
    // Made before connections named origins: each attempt fails until an owner or admin sets them.
    if (origins === null) return { refused: noOriginsYet().message, final: false };
    return { attempt: { ...attempt, credentials: { headers, origins } } };
  }

  private decide(delivery: ClaimedDelivery, outcome: NotificationAttemptDto, final: boolean): AttemptRecord {
    if (outcome.error === null) return { status: 'delivered', outcome, nextAttemptAt: null };
    const wait = final ? null : retryDelayMs(delivery.attempt, this.schedule);
    if (wait === null) return { status: 'failed', outcome, nextAttemptAt: null };
    // An attempt cut short by a shutdown is made again at once, by whichever replica is up.
    const stopped = this.stopping.signal.aborted;
    return { status: 'pending', outcome, nextAttemptAt: new Date(Date.now() + (stopped ? 0 : wait)) };
  }
}
