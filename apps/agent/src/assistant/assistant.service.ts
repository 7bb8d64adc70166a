import { DomainException } from '#common';
import {
  type AssistantMessageMetadata,
  type AssistantTurnRequest,
  CHAT_TURN_TIMEOUT_MS,
  type ModelCallUsage,
  type Principal,
  RunnerSubjects,
  type UiMessageChunk,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { newId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import { type LanguageModel, type ModelMessage, stepCountIs, streamText, type ToolSet } from 'ai';
import type { Logger } from 'pino';

import { AgentConfig } from '../agent.config.js';
import { LOGGER } from '../agent.tokens.js';
import type { ChatTurn } from '../chat/agent-chat.service.js';
import { explainChatFailure, isToolFailure, messageOf, modelIdOf, relayTurn } from '../chat/chat.util.js';
import { LanguageModels } from '../steps/language-models.js';
import { modelTelemetry } from '../steps/model-telemetry.util.js';
import { countModelCall } from '../usage/model.metrics.js';
import { tokenUsageOf } from '../usage/model-usage.util.js';
import { UsageService } from '../usage/usage.service.js';
import {
  type AssistantConversation,
  AssistantConversationRepository,
} from './assistant-conversation.repository.js';
import { historyOf, turnRecordOf } from './assistant-history.js';
import { assistantSystemPrompt } from './assistant-prompt.js';
import { AssistantTools, type ProposalLog } from './assistant-tools.js';

/** The name the assistant's model calls carry in the organization's usage (they have no agent). */
export const ASSISTANT_USAGE_NAME = 'Assistant';

/** Model calls of one assistant turn at most: reads, proposals and their fixes. */
const ASSISTANT_MAX_STEPS = 16;

interface TurnPlan {
  principal: Principal;
  conversation: AssistantConversation;
  question: string;
  model: LanguageModel;
  system: string;
  tools: ToolSet;
  proposals: ProposalLog;
}

/**
 * The workflow assistant (docs/agents.md, "The assistant"): one turn of a member's conversation,
 * streamed like an agent chat. It reads the organization through its tools and proposes workflows
 * that the publish rules check; it never saves, publishes or runs anything.
 */
@Injectable()
export class Assistant {
  constructor(
    private readonly conversations: AssistantConversationRepository,
    private readonly tools: AssistantTools,
    private readonly models: LanguageModels,
    private readonly usage: UsageService,
    private readonly rpc: RpcClient,
    private readonly config: AgentConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Everything that can refuse the turn happens before it answers: a key rather than a member, an
   * unknown workflow or run, a provider that is not configured, an organization past its token budget.
   */
  async start(principal: Principal, request: AssistantTurnRequest, signal: AbortSignal): Promise<ChatTurn> {
    const userId = principal.userId;
    if (userId === null) throw new DomainException('forbidden', 'The assistant is for signed-in members.');
    // Each answers not_found when it is not the organization's.
    await Promise.all([
      request.workflowId
        ? this.rpc.request(WorkflowSubjects.get, principal, { id: request.workflowId })
        : undefined,
      request.runId ? this.rpc.request(RunnerSubjects.runsGet, principal, { id: request.runId }) : undefined,
    ]);
    const model = this.models.modelFor(this.config.ASSISTANT_PROVIDER, this.config.ASSISTANT_MODEL ?? '');
    const passed = await this.usage.organizationBudgetPassed(principal.organizationId);
    if (passed) {
      throw new DomainException(
        'plan_limit_reached',
        `The organization has used ${passed.used} of its monthly token budget of ${passed.budget}; the assistant answers again next month, or once an owner raises the budget.`,
        { resource: 'monthlyTokenBudget', limit: passed.budget },
      );
    }
    const found = await this.conversations.find(principal.organizationId, userId, request.conversationId);
    const conversation: AssistantConversation = found ?? {
      id: newId(),
      organizationId: principal.organizationId,
      userId,
      workflowId: null,
      turns: [],
    };
    conversation.workflowId = request.workflowId ?? conversation.workflowId;
    const proposals: ProposalLog = { proposals: [] };
    const plan: TurnPlan = {
      principal,
      conversation,
      question: request.text,
      model,
      system: assistantSystemPrompt({
        ...(request.workflowId ? { workflowId: request.workflowId } : {}),
        ...(request.projectId ? { projectId: request.projectId } : {}),
        ...(request.runId ? { runId: request.runId } : {}),
      }),
      tools: this.tools.forTurn(
        { principal, ...(request.workflowId ? { workflowId: request.workflowId } : {}) },
        proposals,
      ),
      proposals,
    };
    return { threadId: conversation.id, chunks: this.answer(plan, signal) };
  }

  private async *answer(plan: TurnPlan, signal: AbortSignal): AsyncGenerator<UiMessageChunk> {
    const provider = this.config.ASSISTANT_PROVIDER;
    const stepMs = this.config.AGENT_MODEL_TIMEOUT_MS;
    const calls: ModelCallUsage[] = [];
    const texts: string[] = [];
    const toolFailures = new WeakSet<object>();
    const messages: ModelMessage[] = [
      ...historyOf(plan.conversation.turns),
      { role: 'user', content: plan.question },
    ];
    const result = streamText({
      model: plan.model,
      system: plan.system,
      tools: plan.tools,
      messages,
      stopWhen: stepCountIs(ASSISTANT_MAX_STEPS),
      maxRetries: 1,
      timeout: { totalMs: CHAT_TURN_TIMEOUT_MS, stepMs },
      abortSignal: signal,
      experimental_telemetry: modelTelemetry('assistant.turn', {
        'flowmesh.assistant.conversation': plan.conversation.id,
      }),
      onStepFinish: (step) => {
        if (step.text) texts.push(step.text);
        const call = { provider, model: step.model.modelId, ...tokenUsageOf(step.usage) };
        calls.push(call);
        countModelCall(call.provider, call.model, 'ok', call);
      },
      onError: () => countModelCall(provider, modelIdOf(plan.model), 'error'),
      onAbort: () => countModelCall(provider, modelIdOf(plan.model), 'aborted'),
      experimental_onToolCallFinish: (event) => {
        if (!event.success && typeof event.error === 'object' && event.error !== null) {
          toolFailures.add(event.error);
        }
      },
    });
    const limits = { stepMs, turnMs: CHAT_TURN_TIMEOUT_MS };
    const conversationId = plan.conversation.id;
    const stream = result.toUIMessageStream({
      // The client sends the conversation id back as the chat id of its next message; the tokens of
      // the turn come with its end.
      messageMetadata: ({ part }): AssistantMessageMetadata | undefined => {
        if (part.type === 'start') return { conversationId };
        if (part.type !== 'finish') return undefined;
        const total = calls.reduce(
          (sum, call) => ({
            inputTokens: sum.inputTokens + call.inputTokens,
            outputTokens: sum.outputTokens + call.outputTokens,
          }),
          { inputTokens: 0, outputTokens: 0 },
        );
        return { conversationId, usage: { ...total, totalTokens: total.inputTokens + total.outputTokens } };
      },
      onError: (error) =>
        isToolFailure(error, toolFailures) ? messageOf(error) : explainChatFailure(error, limits),
    });
    yield* relayTurn(stream, signal, limits);
    try {
      await this.usage.record(
        calls.map((call) => ({
          ...call,
          provider,
          organizationId: plan.principal.organizationId,
          agentId: null,
          agentName: ASSISTANT_USAGE_NAME,
          runId: null,
          nodeId: null,
          threadId: conversationId,
        })),
      );
      const last = plan.proposals.proposals.at(-1);
      plan.conversation.turns.push(
        turnRecordOf(
          plan.question,
          texts.join('\n\n'),
          last && {
            name: last.name,
            valid: last.verdict.valid,
            issues: last.verdict.issues,
            diagram: last.verdict.diagram,
          },
        ),
      );
      await this.conversations.save(plan.conversation);
    } catch (error) {
      this.logger.error({ err: error, conversationId }, 'an assistant turn could not be saved');
      yield {
        type: 'error',
        errorText: 'The conversation could not be saved; the assistant will not remember this answer.',
      };
    }
  }
}
