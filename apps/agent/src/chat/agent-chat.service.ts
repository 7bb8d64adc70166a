import { DomainException } from '#common';
import {
  type AgentChatRequest,
  CHAT_TURN_TIMEOUT_MS,
  type ModelCallUsage,
  type Principal,
  type UiMessageChunk,
} from '#contracts';
import { isId, newId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import { type LanguageModel, type ModelMessage, stepCountIs, streamText, type ToolSet } from 'ai';
import type { Logger } from 'pino';

import { AgentConfig } from '../agent.config.js';
import { LOGGER } from '../agent.tokens.js';
import type { AgentRecord } from '../agents/agent.mapper.js';
import { AgentRepository } from '../agents/agent.repository.js';
import { reasoningOptions, systemPromptOf } from '../steps/agent-step.util.js';
import { AgentTools } from '../steps/agent-tools.js';
import { LanguageModels } from '../steps/language-models.js';
import { modelTelemetry } from '../steps/model-telemetry.util.js';
import { ThreadRepository } from '../threads/thread.repository.js';
import { countModelCall } from '../usage/model.metrics.js';
import { messagesWithUsage, type StoredMessage, tokenUsageOf } from '../usage/model-usage.util.js';
import { UsageService } from '../usage/usage.service.js';
import {
  chatTitleOf,
  explainChatFailure,
  isToolFailure,
  messageOf,
  modelIdOf,
  relayTurn,
  withoutAskFirst,
} from './chat.util.js';

/** A turn that has started: the thread it belongs to, and its answer as the model produces it. */
export interface ChatTurn {
  threadId: string;
  /** UI message stream chunks; the last one comes after the turn is saved to the thread. */
  chunks: AsyncIterable<UiMessageChunk>;
}

interface TurnPlan {
  principal: Principal;
  agent: AgentRecord;
  threadId: string;
  /** Null when the turn starts the thread. */
  history: ModelMessage[] | null;
  question: ModelMessage;
  model: LanguageModel;
  system: string;
  tools: ToolSet;
}

/**
 * A member's chat with an agent, one turn at a time: the agent answers the member's message after
 * the thread's earlier messages, with the tools an Agent step gets except the ask-first actions
 * (nobody could approve them in the middle of a chat turn), and the turn is added to the thread.
 */
@Injectable()
export class AgentChat {
  constructor(
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
    private readonly models: LanguageModels,
    private readonly config: AgentConfig,
    private readonly tools: AgentTools,
    private readonly usage: UsageService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Everything that can refuse the turn happens before it answers: an unknown agent, a provider that
   * is not configured, tools that cannot be listed. `signal` stops the model call (the member left).
   */
  async start(principal: Principal, request: AgentChatRequest, signal: AbortSignal): Promise<ChatTurn> {
    const agent = isId(request.agentId)
      ? await this.agents.find(principal.organizationId, request.agentId)
      : null;
    if (!agent) throw DomainException.notFound('agent', request.agentId);
    const found = isId(request.chatId)
      ? await this.threads.get(principal.organizationId, agent.id, request.chatId)
      : null;
    // A run's thread belongs to its Agent step, which may still wait on approvals there: reading it
    // is fine, writing into it is not, so a chat naming it starts a thread of its own.
    const thread = found?.runId === null ? found : null;
    const threadId = thread?.id ?? newId();
    const model = this.models.modelFor(agent.provider, agent.model);
    const { tools, skills } = await this.tools.forStep(agent, {
      principal,
      // Tool calls reach apps with the idempotency key `chat:<thread>:<turn>:<tool call>`.
      runId: `chat:${threadId}`,
      nodeId: newId(),
    });
    const plan: TurnPlan = {
      principal,
      agent,
      threadId,
      history: thread
        ? thread.messages.map((message) => ({ role: message.role, content: message.content }) as ModelMessage)
        : null,
      question: { role: 'user', content: request.text },
      model,
      system: systemPromptOf(agent, skills, { unattended: false }),
      tools: withoutAskFirst(tools),
    };
    return { threadId, chunks: this.answer(plan, signal) };
  }

  private async *answer(plan: TurnPlan, signal: AbortSignal): AsyncGenerator<UiMessageChunk> {
    const stepMs = this.config.AGENT_MODEL_TIMEOUT_MS;
    const steps: { response: { messages: ModelMessage[] } }[] = [];
    const calls: ModelCallUsage[] = [];
    const toolFailures = new WeakSet<object>();
    const result = streamText({
      model: plan.model,
      ...(plan.system ? { system: plan.system } : {}),
      tools: plan.tools,
      messages: [...(plan.history ?? []), plan.question],
      stopWhen: stepCountIs(this.config.AGENT_MAX_STEPS),
      maxRetries: 1,
      timeout: { totalMs: CHAT_TURN_TIMEOUT_MS, stepMs },
      abortSignal: signal,
      providerOptions: reasoningOptions(plan.agent),
      experimental_telemetry: modelTelemetry('agent.chat', { 'flowmesh.agent.id': plan.agent.id }),
      // What the thread keeps of the answer is every step that finished, each with its tokens.
      onStepFinish: (step) => {
        steps.push(step);
        const call = {
          provider: plan.agent.provider,
          model: step.model.modelId,
          ...tokenUsageOf(step.usage),
        };
        calls.push(call);
        countModelCall(call.provider, call.model, 'ok', call);
      },
      onError: () => countModelCall(plan.agent.provider, modelIdOf(plan.model), 'error'),
      onAbort: () => countModelCall(plan.agent.provider, modelIdOf(plan.model), 'aborted'),
      experimental_onToolCallFinish: (event) => {
        if (!event.success && typeof event.error === 'object' && event.error !== null) {
          toolFailures.add(event.error);
        }
      },
    });
    const limits = { stepMs, turnMs: CHAT_TURN_TIMEOUT_MS };
    const metadata = { threadId: plan.threadId };
    const stream = result.toUIMessageStream({
      // The client learns the thread it must send as the chat id of its next message.
      messageMetadata: ({ part }) => (part.type === 'start' || part.type === 'finish' ? metadata : undefined),
      onError: (error) =>
        isToolFailure(error, toolFailures) ? messageOf(error) : explainChatFailure(error, limits),
    });
    yield* relayTurn(stream, signal, limits);
    try {
      await this.usage.record(
        calls.map((call) => ({
          ...call,
          provider: plan.agent.provider,
          organizationId: plan.principal.organizationId,
          agentId: plan.agent.id,
          agentName: plan.agent.name,
          runId: null,
          nodeId: null,
          threadId: plan.threadId,
        })),
      );
      await this.save(plan, [plan.question, ...messagesWithUsage(steps, calls)]);
    } catch (error) {
      this.logger.error({ err: error, threadId: plan.threadId }, 'a chat turn could not be saved');
      yield {
        type: 'error',
        errorText: 'The conversation could not be saved to its thread; this answer will be missing from it.',
      };
    }
  }

  /** The member's message and every finished step of the answer, also when the turn failed or was left. */
  private async save(plan: TurnPlan, messages: StoredMessage[]): Promise<void> {
    if (plan.history) {
      await this.threads.append(plan.threadId, messages);
      return;
    }
    await this.threads.create(
      {
        id: plan.threadId,
        organizationId: plan.principal.organizationId,
        agentId: plan.agent.id,
        title: chatTitleOf(String(plan.question.content)),
        runId: null,
      },
      messages,
    );
  }
}
