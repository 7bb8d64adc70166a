import { RunCancellations, ServiceWiringModule } from '#nats';
import { createLogger } from '#common';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Module } from '@nestjs/common';

import { AgentAuditHandler, agentAuditRetention } from './audit/agent-audit.js';
import { AgentConfig } from './agent.config.js';
import { agentDataSource } from './agent.data-source.js';
import { LOGGER } from './agent.tokens.js';
import { AgentRepository } from './agents/agent.repository.js';
import { AgentsHandler } from './agents/agents.handler.js';
import { AgentsService } from './agents/agents.service.js';
import { AssistantConversationRepository } from './assistant/assistant-conversation.repository.js';
import { Assistant } from './assistant/assistant.service.js';
import { AssistantTools } from './assistant/assistant-tools.js';
import { AgentChat } from './chat/agent-chat.service.js';
import { ChatStreamServer } from './chat/chat-stream.server.js';
import { GrantCheck } from './agents/grant-check.service.js';
import { ApprovalRepository } from './approvals/approval.repository.js';
import { ApprovalGaugeRepository } from './approvals/approval-gauge.repository.js';
import { ApprovalGauges } from './approvals/approval-gauges.service.js';
import { ApprovalUpkeepRepository } from './approvals/approval-upkeep.repository.js';
import { ApprovalUpkeep } from './approvals/approval-upkeep.service.js';
import { ApprovalsHandler } from './approvals/approvals.handler.js';
import { Approvals } from './approvals/approvals.service.js';
import { AgentStepsHandler } from './steps/agent-steps.handler.js';
import { AgentSteps } from './steps/agent-steps.service.js';
import { AgentTools } from './steps/agent-tools.js';
import { LanguageModels } from './steps/language-models.js';
import { ThreadRepository } from './threads/thread.repository.js';
import { ThreadsHandler } from './threads/threads.handler.js';
import { ThreadsService } from './threads/threads.service.js';
import { UsageHandler } from './usage/usage.handler.js';
import { UsageRepository } from './usage/usage.repository.js';
import { UsageService } from './usage/usage.service.js';

@Module({})
export class AgentModule {
  static forRoot(config: AgentConfig): DynamicModule {
    const logger = createLogger('agent');
    return {
      module: AgentModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          ...agentDataSource(config.DATABASE_URL),
          poolSize: config.DATABASE_POOL_SIZE,
        }),
        ServiceWiringModule.forService({
          nats: config.natsEndpoint,
          connection: { name: 'agent-client', check: 'nats_client' },
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
        }),
      ],
      controllers: [
        AgentAuditHandler,
        AgentsHandler,
        AgentStepsHandler,
        ThreadsHandler,
        ApprovalsHandler,
        UsageHandler,
      ],
      providers: [
        agentAuditRetention(config.AUDIT_RETENTION_DAYS),
        { provide: AgentConfig, useValue: config },
        { provide: LOGGER, useValue: logger },
        RunCancellations.provider(logger),
        { provide: LanguageModels, useValue: new LanguageModels(config) },
        AgentRepository,
        ThreadRepository,
        ThreadsService,
        AgentSteps,
        AgentTools,
        GrantCheck,
        AgentsService,
        ApprovalRepository,
        ApprovalUpkeepRepository,
        Approvals,
        ApprovalUpkeep,
        ApprovalGaugeRepository,
        ApprovalGauges,
        AgentChat,
        Assistant,
        AssistantTools,
        AssistantConversationRepository,
        ChatStreamServer,
        UsageRepository,
        UsageService,
      ],
    };
  }
}
