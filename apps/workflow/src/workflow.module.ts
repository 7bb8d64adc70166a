import {
  connectNats,
  HealthModule,
  NatsHealthIndicator,
  ReadinessChecks,
  RpcClient,
  ServiceHealthController,
} from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { NatsConnection } from '@nats-io/transport-node';

import { CatalogClient } from './peers/catalog.client.js';
import { AgentsClient } from './peers/agents.client.js';
import { EventsClient } from './peers/events.client.js';
import { RunnerClient } from './peers/runner.client.js';
import { ScheduleRepository } from './schedules/schedule.repository.js';
import { SchedulerService } from './schedules/scheduler.service.js';
import { SchedulesService } from './schedules/schedules.service.js';
import { WorkflowConfig } from './workflow.config.js';
import { workflowDataSource } from './workflow.database.js';
import { PUBLISH_CHECKS, type PublishCheck } from './workflows/publish-check.js';
import { ActionConnectionsCheck } from './workflows/action-connections.check.js';
import { AgentNodesCheck } from './workflows/agent-nodes.check.js';
import { EventTriggerActivation } from './workflows/event-trigger-activation.js';
import { TriggerActivation } from './workflows/trigger-activation.js';
import { WorkflowDeletion } from './workflows/workflow-deletion.service.js';
import { WorkflowVersionRepository } from './workflows/workflow-version.repository.js';
import { WorkflowRepository } from './workflows/workflow.repository.js';
import { WorkflowsHandler } from './workflows/workflows.handler.js';
import { WorkflowsService } from './workflows/workflows.service.js';

/** The connection this service's own requests (to catalog and the runner) go out on. */
const NATS_CONNECTION = Symbol('NATS_CONNECTION');

@Module({})
export class WorkflowModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nats: NatsConnection) {}

  static forRoot(config: WorkflowConfig): DynamicModule {
    return {
      module: WorkflowModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          ...workflowDataSource(config.DATABASE_URL),
          poolSize: config.DATABASE_POOL_SIZE,
        }),
        HealthModule,
      ],
      controllers: [ServiceHealthController, WorkflowsHandler],
      providers: [
        { provide: WorkflowConfig, useValue: config },
        { provide: NATS_CONNECTION, useFactory: () => connectNats(config.natsEndpoint, 'workflow-client') },
        {
          provide: RpcClient,
          inject: [NATS_CONNECTION],
          useFactory: (nats: NatsConnection) => new RpcClient(nats, config.RPC_TIMEOUT_MS),
        },
        {
          provide: ReadinessChecks,
          inject: [TypeOrmHealthIndicator, NatsHealthIndicator, NATS_CONNECTION],
          useFactory: (postgres: TypeOrmHealthIndicator, nats: NatsHealthIndicator, client: NatsConnection) =>
            new ReadinessChecks([
              () => postgres.pingCheck('postgres'),
              () => nats.pingCheck('nats_client', client),
            ]),
        },
        {
          provide: PUBLISH_CHECKS,
          inject: [ActionConnectionsCheck, AgentNodesCheck],
          useFactory: (actions: ActionConnectionsCheck, agents: AgentNodesCheck): PublishCheck[] => [
            actions,
            agents,
          ],
        },
        ActionConnectionsCheck,
        AgentNodesCheck,
        AgentsClient,
        { provide: TriggerActivation, useClass: EventTriggerActivation },
        CatalogClient,
        EventsClient,
        RunnerClient,
        WorkflowRepository,
        WorkflowVersionRepository,
        WorkflowsService,
        WorkflowDeletion,
        ScheduleRepository,
        SchedulesService,
        SchedulerService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }
}
