import { DomainException } from '#common';
import type { ReceiveHookRequest } from '#contracts';
import { newId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { ConnectionsService } from '../connections/connections.service.js';
import { EventJobs } from '../delivery/event-jobs.service.js';
import { appEventReceived } from '../events/app-event.metrics.js';
import { AppEventRepository } from '../events/app-event.repository.js';
import { AppProviders } from '../integrations/app-providers.js';

const unknownConnection = () =>
  new DomainException('unauthorized', 'No connection takes deliveries at this address.');

/**
 * Webhook ingress: verify, store, queue, answer. Only the store must succeed before the answer;
 * fan-out to runs happens from the queue, so ingress stays fast however many triggers listen.
 */
@Injectable()
export class HooksService {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly providers: AppProviders,
    private readonly events: AppEventRepository,
    private readonly jobs: EventJobs,
  ) {}

  async receive({ connectionId, headers, body }: ReceiveHookRequest): Promise<{ received: true }> {
    const connection = await this.connections.open(connectionId);
    if (!connection) throw unknownConnection();
    const provider = this.providers.get(connection.integrationId);
    if (!provider.receive) throw unknownConnection();
    const inbound = provider.receive(connection, headers, body);
    const eventId = newId();
    const stored = await this.events.insert({
      id: eventId,
      organizationId: connection.organizationId,
      connectionId: connection.id,
      trigger: inbound.trigger,
      deliveryId: inbound.deliveryId,
      payload: inbound.payload,
      firedAt: inbound.firedAt,
    });
    appEventReceived(connection.integrationId, stored);
    // A redelivery was stored (and queued) the first time: nothing new to do.
    if (stored) await this.jobs.publishSoon({ eventId });
    return { received: true };
  }
}
