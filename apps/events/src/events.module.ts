import { createLogger } from '#common';
import {
  connectNats,
  HealthModule,
  JetStreamQueue,
  NatsHealthIndicator,
  ReadinessChecks,
  RpcClient,
  ServiceHealthController,
} from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { ActionsHandler } from './actions/actions.handler.js';
import { ActionsService } from './actions/actions.service.js';
import { ConnectionRepository } from './connections/connection.repository.js';
import { ConnectionsHandler } from './connections/connections.handler.js';
import { ConnectionsService } from './connections/connections.service.js';
import { CredentialCipher } from './connections/credential-cipher.js';
import { EventDelivery } from './delivery/event-delivery.service.js';
import { EventJobConsumer } from './delivery/event-job.consumer.js';
import { EventJobs } from './delivery/event-jobs.service.js';
import { EventUpkeep } from './delivery/event-upkeep.service.js';
import { EventsConfig } from './events.config.js';
import { eventsDataSource } from './events.data-source.js';
import { LOGGER, NATS_CONNECTION } from './events.tokens.js';
import { AppEventRepository } from './events/app-event.repository.js';
import { EventOutcomeRepository } from './events/event-outcome.repository.js';
import { EventsHandler } from './events/events.handler.js';
import { EventsService } from './events/events.service.js';
import { HooksHandler } from './hooks/hooks.handler.js';
import { HooksService } from './hooks/hooks.service.js';
import { AppProviders } from './integrations/app-providers.js';
import { OutboundHttp } from './outbound/outbound-http.js';
import { BindingRepository } from './subscriptions/binding.repository.js';
import { SubscriptionsHandler } from './subscriptions/subscriptions.handler.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';

@Module({})
export class EventsModule implements OnApplicationShutdown {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    private readonly http: OutboundHttp,
  ) {}

  static forRoot(config: EventsConfig): DynamicModule {
    const cipher = CredentialCipher.fromEnvironment(config.CONNECTIONS_ENCRYPTION_KEY);
    return {
      module: EventsModule,
      imports: [
        ServiceDatabaseModule.forRoot(
          eventsDataSource(config.DATABASE_URL, cipher, config.DATABASE_POOL_SIZE),
        ),
        HealthModule,
      ],
      controllers: [
        ServiceHealthController,
        ConnectionsHandler,
        HooksHandler,
        SubscriptionsHandler,
        EventsHandler,
        ActionsHandler,
      ],
      providers: [
        { provide: EventsConfig, useValue: config },
        { provide: LOGGER, useValue: createLogger('events') },
        {
          provide: NATS_CONNECTION,
          useFactory: (): Promise<NatsConnection> => connectNats(config.natsEndpoint, 'events-client'),
        },
        {
          provide: RpcClient,
          inject: [NATS_CONNECTION],
          useFactory: (nats: NatsConnection) => new RpcClient(nats, config.RPC_TIMEOUT_MS),
        },
        {
          provide: JetStreamQueue,
          inject: [NATS_CONNECTION, LOGGER],
          useFactory: (nats: NatsConnection, logger: Logger) =>
            new JetStreamQueue(nats, logger, config.NATS_STREAM_REPLICAS),
        },
        {
          provide: ReadinessChecks,
          inject: [TypeOrmHealthIndicator, NatsHealthIndicator, NATS_CONNECTION, JetStreamQueue, EventJobs],
          useFactory: (
            postgres: TypeOrmHealthIndicator,
            nats: NatsHealthIndicator,
            client: NatsConnection,
            queue: JetStreamQueue,
            jobs: EventJobs,
          ) =>
            new ReadinessChecks([
              () => postgres.pingCheck('postgres'),
              () => nats.pingCheck('nats_client', client),
              () => nats.streamCheck('events_stream', queue, jobs.definition),
            ]),
        },
        { provide: CredentialCipher, useValue: cipher },
        {
          provide: OutboundHttp,
          useValue: new OutboundHttp(config.ACTIONS_ALLOW_PRIVATE_NETWORKS, config.ACTION_RESPONSE_MAX_BYTES),
        },
        {
          provide: AppProviders,
          inject: [OutboundHttp],
          useFactory: (http: OutboundHttp) => new AppProviders(http),
        },
        ConnectionRepository,
        ConnectionsService,
        BindingRepository,
        SubscriptionsService,
        AppEventRepository,
        EventOutcomeRepository,
        EventJobs,
        EventDelivery,
        EventJobConsumer,
        EventUpkeep,
        HooksService,
        EventsService,
        ActionsService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
    await this.nats.drain();
  }
}
