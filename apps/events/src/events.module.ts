import { createLogger } from '#common';
import { RunCancellations, ServiceWiringModule } from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';

import { EventsAuditHandler, eventsAuditRetention } from './audit/events-audit.js';
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
import { LOGGER } from './events.tokens.js';
import { AppEventRepository } from './events/app-event.repository.js';
import { EventOutcomeRepository } from './events/event-outcome.repository.js';
import { EventsHandler } from './events/events.handler.js';
import { EventsService } from './events/events.service.js';
import { HooksHandler } from './hooks/hooks.handler.js';
import { HooksService } from './hooks/hooks.service.js';
import { AppProviders } from './integrations/app-providers.js';
import { McpToolListRepository } from './mcp/mcp-tool-list.repository.js';
import { McpToolsHandler } from './mcp/mcp-tools.handler.js';
import { McpToolsService } from './mcp/mcp-tools.service.js';
import { NotificationDeliveryRepository } from './notifications/notification-delivery.repository.js';
import { NotificationDispatcher } from './notifications/notification-dispatcher.service.js';
import { NotificationEndpointRepository } from './notifications/notification-endpoint.repository.js';
import { NotificationEndpointsService } from './notifications/notification-endpoints.service.js';
import { NotificationSender } from './notifications/notification-sender.js';
import { NotificationsHandler } from './notifications/notifications.handler.js';
import { RunNotificationsService } from './notifications/run-notifications.service.js';
import { OutboundHttp } from './outbound/outbound-http.js';
import { BindingRepository } from './subscriptions/binding.repository.js';
import { SubscriptionsHandler } from './subscriptions/subscriptions.handler.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';

@Module({})
export class EventsModule implements OnApplicationShutdown {
  constructor(private readonly http: OutboundHttp) {}

  static forRoot(config: EventsConfig): DynamicModule {
    const cipher = CredentialCipher.fromEnvironment(config.CONNECTIONS_ENCRYPTION_KEY);
    const logger = createLogger('events');
    return {
      module: EventsModule,
      imports: [
        ServiceDatabaseModule.forRoot(
          eventsDataSource(config.DATABASE_URL, cipher, config.DATABASE_POOL_SIZE),
        ),
        ServiceWiringModule.forService({
          nats: config.natsEndpoint,
          connection: { name: 'events-client', check: 'nats_client' },
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          jetStream: {
            replicas: config.NATS_STREAM_REPLICAS,
            logger,
            queues: { events_stream: EventJobs },
            metricsPollMs: config.METRICS_POLL_MS,
          },
        }),
      ],
      controllers: [
        EventsAuditHandler,
        ConnectionsHandler,
        HooksHandler,
        SubscriptionsHandler,
        EventsHandler,
        ActionsHandler,
        McpToolsHandler,
        NotificationsHandler,
      ],
      providers: [
        eventsAuditRetention(config.AUDIT_RETENTION_DAYS),
        { provide: EventsConfig, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: CredentialCipher, useValue: cipher },
        {
          provide: OutboundHttp,
          useValue: new OutboundHttp(config.ACTIONS_ALLOW_PRIVATE_NETWORKS, config.ACTION_RESPONSE_MAX_BYTES),
        },
        {
          provide: AppProviders,
          inject: [OutboundHttp, McpToolListRepository],
          useFactory: (http: OutboundHttp, toolLists: McpToolListRepository) =>
            new AppProviders(http, toolLists),
        },
        McpToolListRepository,
        McpToolsService,
        RunCancellations.provider(logger),
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
        {
          provide: NotificationSender,
          inject: [OutboundHttp],
          useFactory: (http: OutboundHttp) => new NotificationSender(http, config.NOTIFICATIONS_TIMEOUT_MS),
        },
        NotificationEndpointRepository,
        NotificationDeliveryRepository,
        NotificationEndpointsService,
        NotificationDispatcher,
        RunNotificationsService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}
