import { ServiceWiringModule } from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Module } from '@nestjs/common';

import { WorkflowAuditHandler, workflowAuditRetention } from './audit/workflow-audit.js';
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
import { WorkflowNodesCheck } from './workflows/workflow-nodes.check.js';
import { EventTriggerActivation } from './workflows/event-trigger-activation.js';
import { TriggerActivation } from './workflows/trigger-activation.js';
import { WorkflowDeletion } from './workflows/workflow-deletion.service.js';
import { WorkflowVersionRepository } from './workflows/workflow-version.repository.js';
import { WorkflowRepository } from './workflows/workflow.repository.js';
import { WorkflowsHandler } from './workflows/workflows.handler.js';
import { WorkflowsService } from './workflows/workflows.service.js';

@Module({})
export class WorkflowModule {
  static forRoot(config: WorkflowConfig): DynamicModule {
    return {
      module: WorkflowModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          ...workflowDataSource(config.DATABASE_URL),
          poolSize: config.DATABASE_POOL_SIZE,
        }),
        ServiceWiringModule.forService({
          nats: config.natsEndpoint,
          // This service's own requests (to catalog and the runner) go out on it.
          connection: { name: 'workflow-client', check: 'nats_client' },
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
        }),
      ],
      controllers: [WorkflowAuditHandler, WorkflowsHandler],
      providers: [
        workflowAuditRetention(config.AUDIT_RETENTION_DAYS),
        { provide: WorkflowConfig, useValue: config },
        {
          provide: PUBLISH_CHECKS,
          inject: [ActionConnectionsCheck, AgentNodesCheck, WorkflowNodesCheck],
          useFactory: (
            actions: ActionConnectionsCheck,
            agents: AgentNodesCheck,
            workflows: WorkflowNodesCheck,
          ): PublishCheck[] => [actions, agents, workflows],
        },
        ActionConnectionsCheck,
        AgentNodesCheck,
        WorkflowNodesCheck,
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
}
