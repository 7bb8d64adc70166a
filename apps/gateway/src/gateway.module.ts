import { CatalogSubjects } from '#contracts';
import { NATS_CONNECTION, RpcClient, type RunningApp, ServiceWiringModule, subscribeEvent } from '#nats';
import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';

import { RequestGate } from './auth/request-gate.js';
import { AuditController } from './audit/audit.controller.js';
import { AuthProxyController } from './auth/auth-proxy.controller.js';
import { CredentialCache } from './auth/credential-cache.js';
import { BillingController } from './billing/billing.controller.js';
import { BillingService } from './billing/billing.service.js';
import { DashboardController } from './dashboard/dashboard.controller.js';
import { DashboardService } from './dashboard/dashboard.service.js';
import { ConnectionsController } from './connections/connections.controller.js';
import { ConsoleSettingsController } from './console/console-settings.controller.js';
import { EventsController } from './events/events.controller.js';
import { NotificationEndpointsController } from './notifications/notification-endpoints.controller.js';
import { OperationsController } from './operations/operations.controller.js';
import { HooksController } from './hooks/hooks.controller.js';
import { DatabaseQueryClient } from './databases/database-query.client.js';
import { DatabasesController } from './databases/databases.controller.js';
import { GatewayConfig } from './gateway.config.js';
import { HealthController } from './health/health.controller.js';
import { HealthProbesController } from './health/health-probes.controller.js';
import { KeysController } from './keys/keys.controller.js';
import { ProjectsController } from './projects/projects.controller.js';
import { OrganizationLanes } from './rate-limit/organization-lanes.js';
import { RateLimits } from './rate-limit/rate-limits.js';
import { LiveHolds } from './runs/live-holds.js';
import { LiveRuns } from './runs/live-runs.service.js';
import { RunWatcher } from './runs/run-watcher.service.js';
import { RunsController } from './runs/runs.controller.js';
import { WorkflowRunsController } from './runs/workflow-runs.controller.js';
import { SkillsController } from './skills/skills.controller.js';
import { AgentChatClient } from './agents/agent-chat.client.js';
import { AgentChatController } from './agents/agent-chat.controller.js';
import { AssistantController } from './agents/assistant.controller.js';
import { McpController } from './mcp/mcp.controller.js';
import { AgentsController } from './agents/agents.controller.js';
import { AgentThreadsController } from './agents/agent-threads.controller.js';
import { ProjectWorkflowsController } from './workflows/project-workflows.controller.js';
import { WorkflowsController } from './workflows/workflows.controller.js';
import { UsageController } from './usage/usage.controller.js';

@Module({})
export class GatewayModule implements OnApplicationShutdown {
  constructor(private readonly rateLimits: RateLimits) {}

  /** `companions`: the apps sharing this process (all-in-one), whose readiness is also the gateway's. */
  static forRoot(config: GatewayConfig, companions: readonly RunningApp[] = []): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ServiceWiringModule.forGateway({
          nats: config.natsEndpoint,
          connection: { name: 'gateway', check: 'nats' },
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          ...(config.ORGANIZATION_REQUESTS_IN_FLIGHT > 0
            ? { rpcLanes: new OrganizationLanes(config.ORGANIZATION_REQUESTS_IN_FLIGHT) }
            : {}),
          connections: {
            nats_databases: DatabaseQueryClient,
            nats_chat: AgentChatClient,
            nats_runs: RunWatcher,
          },
          checks: companions.map((companion) => () => companion.ready()),
        }),
      ],
      controllers: [
        HealthController,
        HealthProbesController,
        AuthProxyController,
        AuditController,
        ProjectsController,
        SkillsController,
        AgentsController,
        AgentThreadsController,
        AgentChatController,
        AssistantController,
        McpController,
        BillingController,
        UsageController,
        DashboardController,
        ConnectionsController,
        KeysController,
        ConsoleSettingsController,
        EventsController,
        HooksController,
        DatabasesController,
        WorkflowRunsController,
        RunsController,
        OperationsController,
        NotificationEndpointsController,
        ProjectWorkflowsController,
        WorkflowsController,
      ],
      providers: [
        { provide: GatewayConfig, useValue: config },
        {
          provide: CredentialCache,
          inject: [RpcClient, NATS_CONNECTION],
          useFactory: (rpc: RpcClient, nats: NatsConnection) => {
            const cache = new CredentialCache(config.AUTH_CACHE_TTL_MS, (credential) =>
              rpc.request(
                CatalogSubjects.authResolve,
                null,
                credential.startsWith('cookie:')
                  ? { cookie: credential.slice('cookie:'.length) }
                  : { token: credential },
              ),
            );
            subscribeEvent(nats, CatalogSubjects.authInvalidated, (stale) => cache.forget(stale));
            return cache;
          },
        },
        {
          provide: RateLimits,
          inject: [RpcClient],
          useFactory: (rpc: RpcClient) =>
            new RateLimits(config, (request) => rpc.request(CatalogSubjects.rateLimitConsume, null, request)),
        },
        {
          provide: RequestGate,
          inject: [CredentialCache, RateLimits],
          useFactory: (credentials: CredentialCache, limits: RateLimits) =>
            new RequestGate(credentials, limits, new URL(config.PUBLIC_URL).origin),
        },
        DatabaseQueryClient.provider(config.natsEndpoint),
        AgentChatClient.provider(config.natsEndpoint),
        RunWatcher.provider(config.natsEndpoint),
        LiveRuns,
        LiveHolds,
        BillingService,
        DashboardService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rateLimits.stop();
  }
}
