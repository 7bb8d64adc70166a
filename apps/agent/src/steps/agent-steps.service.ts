import { DomainException } from '#common';
import {
  ACTION_ANSWER_MARGIN_MS,
  ACTION_MAX_TIMEOUT_MS,
  AGENT_STEP_TIMEOUT_MS,
  type AgentStepRequest,
  budgetTokensOf,
  type AgentStepResult,
  type ModelCallUsage,
  type Principal,
  type StepUsage,
  sumUsage,
} from '#contracts';
import { RunCancellations } from '#nats';
import { isId, newId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { generateText, type ModelMessage, stepCountIs, type ToolResultPart } from 'ai';

import { AgentConfig } from '../agent.config.js';
import type { AgentRecord } from '../agents/agent.mapper.js';
import { AgentRepository } from '../agents/agent.repository.js';
import type { ApprovalRecord } from '../approvals/approval.mapper.js';
import { ApprovalRepository } from '../approvals/approval.repository.js';
import { ApprovalUpkeep } from '../approvals/approval-upkeep.service.js';
import { Approvals } from '../approvals/approvals.service.js';
import type { NewThread } from '../threads/thread.mapper.js';
import { ThreadRepository } from '../threads/thread.repository.js';
import { monthOf, type PassedBudget } from '../usage/budget.util.js';
import { countModelCall } from '../usage/model.metrics.js';
import {
  messagesWithUsage,
  type StoredMessage,
  stepUsageOf,
  tokenUsageOf,
} from '../usage/model-usage.util.js';
import type { NewModelCall } from '../usage/usage.mapper.js';
import { UsageRepository } from '../usage/usage.repository.js';
import { UsageService } from '../usage/usage.service.js';
import {
  answeredCalls,
  explainModelFailure,
  lastAnswer,
  outputOf,
  reasoningOptions,
  systemPromptOf,
} from './agent-step.util.js';
import { AgentTools } from './agent-tools.js';
import { LanguageModels } from './language-models.js';
import { modelTelemetry } from './model-telemetry.util.js';

/** Time left for the answer to travel and the thread to be saved after the model's last call. */
const SAVE_MARGIN_MS = 10_000;

/**
 * An approved action runs while its decision is answered. A step resumed meanwhile (by another
 * decision, or the expiry) waits this long for it rather than run the action a second time.
 */
const SETTLE_GRACE_MS = ACTION_MAX_TIMEOUT_MS + ACTION_ANSWER_MARGIN_MS;

interface Conversation {
  threadId: string | null;
  /** What the thread holds already. */
  history: ModelMessage[];
  /** What this call adds before the model answers: the task, or the decisions. */
  added: ModelMessage[];
  /** The step's ask-first calls so far. */
  approvals: ApprovalRecord[];
  /** Aborted when the run is cancelled: the model call stops. */
  signal: AbortSignal;
}

/**
 * One Agent step: the agent answers the task unattended, within a bounded number of model calls each
 * with its own time limit, and the conversation is kept as a new thread titled after the run. A call
 * of an ask-first action ends the call with approval requests: they are recorded pending, the thread
 * is saved, and the step waits. Once every request is decided the step resumes the thread with the
 * decisions (an approved action's outcome, or the denial and its reason); an expired one fails it.
 * A cancel of the run aborts the model call, and the step answers the cancel's message.
 */
@Injectable()
export class AgentSteps {
  constructor(
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
    private readonly models: LanguageModels,
    private readonly config: AgentConfig,
    private readonly tools: AgentTools,
    private readonly approvals: ApprovalRepository,
    private readonly decisions: Approvals,
    private readonly upkeep: ApprovalUpkeep,
    private readonly cancellations: RunCancellations,
    private readonly usage: UsageService,
    private readonly calls: UsageRepository,
  ) {}

  run(principal: Principal, request: AgentStepRequest): Promise<AgentStepResult> {
    return this.cancellations.during(request.runId, principal.organizationId, (signal) =>
      this.step(principal, request, signal),
    );
  }

  private async step(
    principal: Principal,
    request: AgentStepRequest,
    signal: AbortSignal,
  ): Promise<AgentStepResult> {
    const agent = isId(request.agentId)
      ? await this.agents.find(principal.organizationId, request.agentId)
      : null;
    if (!agent) throw DomainException.notFound('agent', request.agentId);
    if (request.threadId !== undefined) {
      return this.resume(principal, request, agent, request.threadId, signal);
    }
    if (request.interrupted) {
      // An earlier execution may have been waiting on calls, unrecorded by its runner: nobody will
      // resume that conversation, so its calls can no longer be approved.
      await this.approvals.supersede(
        principal.organizationId,
        request.runId,
        request.nodeId,
        'The step started again after an interruption.',
      );
    }
    return this.converse(principal, request, agent, {
      threadId: null,
      history: [],
      added: [{ role: 'user', content: request.task }],
      approvals: [],
      signal,
    });
  }

  private async resume(
    principal: Principal,
    request: AgentStepRequest,
    agent: AgentRecord,
    threadId: string,
    signal: AbortSignal,
  ): Promise<AgentStepResult> {
    const { organizationId } = principal;
    const ofThread = async () =>
      (await this.approvals.forStep(organizationId, request.runId, request.nodeId)).filter(
        (approval) => approval.threadId === threadId,
      );
    const [history, found, calls] = await Promise.all([
      this.threads.messages(threadId),
      ofThread(),
      this.calls.forThread(threadId),
    ]);
    const usage = stepUsageOf(calls);
    let approvals = found;
    const budgetWait = await this.budgetDecision(principal, request, threadId, history, approvals, usage);
    if (budgetWait === 'go on') {
      return this.converse(principal, request, agent, { threadId, history, added: [], approvals, signal });
    }
    if (budgetWait) return budgetWait;
    const answered = answeredCalls(history);
    const openOf = (all: ApprovalRecord[]) =>
      all.filter((approval) => approval.kind === 'action' && !answered.has(approval.toolCallId));
    let open = openOf(approvals);
    if (open.length === 0) {
      // The conversation went on before (the runner lost the answer): it ended where the thread ends.
      return { status: 'done', output: outputOf(lastAnswer(history), threadId, history, approvals, usage) };
    }
    const now = Date.now();
    if (open.some((approval) => approval.status === 'pending' && approval.expiresAt.getTime() <= now)) {
      await this.approvals.expireDue(organizationId, request.runId, request.nodeId);
      approvals = await ofThread(); // A decision may have won the race with the expiry.
      open = openOf(approvals);
    }
    // Whoever expired it (this step, or a decision that came too late), an expired call fails the step.
    const expired = open.filter((approval) => approval.status === 'expired');
    if (expired.length > 0) {
      const tools = [...new Set(expired.map((approval) => approval.action))].join(', ');
      throw new DomainException(
        'approval_not_pending',
        `The approval of ${tools} expired without a decision.`,
      );
    }
    const undecided = open.filter((approval) => approval.status === 'pending');
    // An approved action still running under its decision: the decision wakes the step when done.
    const settling = open.filter(
      (approval) =>
        approval.status === 'approved' &&
        approval.settledAt === null &&
        (approval.decidedAt?.getTime() ?? 0) + SETTLE_GRACE_MS > now,
    );
    if (undecided.length > 0 || settling.length > 0) {
      const until = Math.min(
        ...undecided.map((approval) => approval.expiresAt.getTime()),
        ...settling.map((approval) => (approval.decidedAt?.getTime() ?? now) + SETTLE_GRACE_MS),
      );
      return {
        status: 'waiting',
        until: new Date(until).toISOString(),
        threadId,
        output: outputOf(lastAnswer(history), threadId, history, approvals, usage),
      };
    }
    // Each call is answered from its stored decision: the approved action's outcome (it ran when it
    // was approved), or the denial and its reason. Built here rather than by the SDK's own approval
    // resume, which would re-check the calls against the agent's grants as they are now.
    const results = await Promise.all(
      open.map(async (approval) => ({
        type: 'tool-result' as const,
        toolCallId: approval.toolCallId,
        toolName: approval.tool,
        output: await this.outputOfDecision(principal, approval),
      })),
    );
    return this.converse(principal, request, agent, {
      threadId,
      history,
      added: [{ role: 'tool', content: results }],
      approvals,
      signal,
    });
  }

  /**
   * A step that waited because it would pass a token budget: still waiting (pending), failed (denied,
   * or expired without a decision), or going on (approved, once: the approval is marked used, so a
   * step resumed again does not take it twice). Null when the step waits on no budget approval.
   */
  private async budgetDecision(
    principal: Principal,
    request: AgentStepRequest,
    threadId: string,
    history: ModelMessage[],
    approvals: ApprovalRecord[],
    usage: StepUsage,
  ): Promise<AgentStepResult | 'go on' | null> {
    const { organizationId } = principal;
    const openOf = (all: ApprovalRecord[]) =>
      all.filter(
        (approval) =>
          approval.kind === 'budget' && approval.threadId === threadId && approval.settledAt === null,
      );
    let open = openOf(approvals);
    if (open.length === 0) return null;
    if (
      open.some((approval) => approval.status === 'pending' && approval.expiresAt.getTime() <= Date.now())
    ) {
      await this.approvals.expireDue(organizationId, request.runId, request.nodeId);
      // A decision may have won the race with the expiry.
      open = openOf(await this.approvals.forStep(organizationId, request.runId, request.nodeId));
    }
    const [budget] = open;
    if (!budget) return null;
    switch (budget.status) {
      case 'pending':
        return {
          status: 'waiting',
          until: budget.expiresAt.toISOString(),
          threadId,
          output: outputOf(lastAnswer(history), threadId, history, approvals, usage),
        };
      case 'expired':
        throw new DomainException(
          'approval_not_pending',
          `The approval to pass the monthly token budget (${budget.action}) expired without a decision.`,
        );
      case 'denied':
        throw new DomainException(
          'approval_not_pending',
          `The monthly token budget was passed and an owner denied going on (${budget.action})${
            budget.reason ? `: ${budget.reason}` : '.'
          }`,
        );
      case 'approved':
        await this.approvals.settle(organizationId, budget.id, { result: null });
        return 'go on';
    }
  }

  private async outputOfDecision(
    principal: Principal,
    approval: ApprovalRecord,
  ): Promise<ToolResultPart['output']> {
    if (approval.status !== 'approved') {
      return { type: 'execution-denied', ...(approval.reason === null ? {} : { reason: approval.reason }) };
    }
    try {
      return { type: 'text', value: this.tools.bounded(await this.decisions.outcomeOf(principal, approval)) };
    } catch (error) {
      return { type: 'error-text', value: error instanceof Error ? error.message : String(error) };
    }
  }

  private async converse(
    principal: Principal,
    request: AgentStepRequest,
    agent: AgentRecord,
    conversation: Conversation,
  ): Promise<AgentStepResult> {
    const model = this.models.modelFor(agent.provider, agent.model);
    const thread = {
      organizationId: principal.organizationId,
      agentId: agent.id,
      title: `${request.workflowName} · run ${request.runId}`,
      runId: request.runId,
    };
    const budget = await this.usage.gauge(agent, request.runId);
    const passed = budget(0);
    if (passed) {
      return this.waitForBudget(principal, request, agent, conversation, thread, passed, {
        produced: conversation.added,
        calls: [],
      });
    }
    const { tools, skills, askFirst } = await this.tools.forStep(agent, {
      principal,
      runId: request.runId,
      nodeId: request.nodeId,
    });
    const stepMs = this.config.AGENT_MODEL_TIMEOUT_MS;
    const modelId = typeof model === 'string' ? model : model.modelId;
    const calls: ModelCallUsage[] = [];
    const toRecord = (threadId: string | null): NewModelCall[] =>
      calls.map((call) => ({
        ...call,
        provider: agent.provider,
        organizationId: principal.organizationId,
        agentId: agent.id,
        agentName: agent.name,
        runId: request.runId,
        nodeId: request.nodeId,
        threadId,
      }));
    let answer: Awaited<ReturnType<typeof generateText>>;
    try {
      answer = await generateText({
        model,
        system: systemPromptOf(agent, skills),
        tools,
        messages: [...conversation.history, ...conversation.added],
        // Before each model call, a budget the round's own calls have reached stops it too.
        stopWhen: [
          stepCountIs(this.config.AGENT_MAX_STEPS),
          ({ steps }) =>
            budget(budgetTokensOf(sumUsage(steps.map((step) => tokenUsageOf(step.usage))))) !== null,
        ],
        maxRetries: 1,
        timeout: { totalMs: AGENT_STEP_TIMEOUT_MS - SAVE_MARGIN_MS, stepMs },
        providerOptions: reasoningOptions(agent),
        abortSignal: conversation.signal,
        experimental_telemetry: modelTelemetry('agent.step', { 'flowmesh.agent.id': agent.id }),
        onStepFinish: (step) => {
          const call = { provider: agent.provider, model: step.model.modelId, ...tokenUsageOf(step.usage) };
          calls.push(call);
          countModelCall(call.provider, call.model, 'ok', call);
        },
      });
    } catch (error) {
      countModelCall(agent.provider, modelId, conversation.signal.aborted ? 'aborted' : 'error');
      // The calls that answered before the failure were paid for: they count, though no thread keeps them.
      await this.usage.record(toRecord(conversation.threadId)).catch(() => undefined);
      if (conversation.signal.aborted) throw conversation.signal.reason;
      throw explainModelFailure(error, stepMs);
    }
    // Cancelled as the model answered: nothing of the answer is kept, no call waits for approval.
    if (conversation.signal.aborted) {
      await this.usage.record(toRecord(conversation.threadId)).catch(() => undefined);
      conversation.signal.throwIfAborted();
    }
    const produced = [...conversation.added, ...messagesWithUsage(answer.steps, calls)];
    const messages = [...conversation.history, ...produced];
    const requests = answer.content.filter((part) => part.type === 'tool-approval-request');
    const passedNow = budget(budgetTokensOf(sumUsage(calls)));
    if (requests.length === 0 && passedNow && answer.finishReason === 'tool-calls') {
      // Stopped by the budget with the tool results in hand: the next call waits for an owner.
      return this.waitForBudget(principal, request, agent, conversation, thread, passedNow, {
        produced,
        calls: toRecord(null),
      });
    }
    const threadId = conversation.threadId ?? newId();
    const usage = stepUsageOf([
      ...(conversation.threadId ? await this.calls.forThread(threadId) : []),
      ...calls,
    ]);
    if (requests.length === 0) {
      // The conversation and the usage of its calls are kept together.
      await this.threads.transaction(async (trx) => {
        if (conversation.threadId === null)
          await this.threads.create({ id: threadId, ...thread }, produced, trx);
        else await this.threads.append(threadId, produced, trx);
        await this.calls.record(toRecord(threadId), trx);
      });
      return {
        status: 'done',
        output: outputOf(answer.text, threadId, messages, conversation.approvals, usage),
      };
    }
    const pending = requests.map(({ toolCall }) => {
      const action = askFirst.get(toolCall.toolName);
      if (!action) throw new Error(`${toolCall.toolName} asked for an approval it does not need`);
      return {
        organizationId: principal.organizationId,
        runId: request.runId,
        nodeId: request.nodeId,
        workflowId: request.workflowId,
        workflowName: request.workflowName,
        threadId,
        toolCallId: toolCall.toolCallId,
        tool: toolCall.toolName,
        ...action,
        input: toolCall.input,
      };
    });
    // The conversation and the calls it waits on are kept together: saved apart, a crash between the
    // two would leave a thread waiting on calls nobody recorded.
    const opened = await this.threads.transaction(async (trx) => {
      if (conversation.threadId === null)
        await this.threads.create({ id: threadId, ...thread }, produced, trx);
      else await this.threads.append(threadId, produced, trx);
      await this.calls.record(toRecord(threadId), trx);
      return this.approvals.insertPending(pending, this.config.APPROVAL_TTL_SECONDS, trx);
    });
    if (conversation.signal.aborted) {
      // The cancel's own closing may have run before these calls were written.
      const reason = conversation.signal.reason as Error;
      await this.approvals.closeForRun(principal.organizationId, request.runId, reason.message);
      throw reason;
    }
    this.upkeep.kick();
    const until = Math.min(...opened.map((approval) => approval.expiresAt.getTime()));
    return {
      status: 'waiting',
      until: new Date(until).toISOString(),
      threadId,
      output: outputOf(answer.text, threadId, messages, [...conversation.approvals, ...opened], usage),
    };
  }

  /**
   * The step's next model call would pass a token budget: rather than fail, it waits for an owner's
   * approval (`budget:<agent name>`, in the approvals inbox like an ask-first call, with the same
   * expiry). What the conversation has so far (the task, the decisions just taken, the calls and tool
   * results of the round the budget stopped) is kept in the thread with the calls' usage, so an
   * approval goes on from there.
   */
  private async waitForBudget(
    principal: Principal,
    request: AgentStepRequest,
    agent: AgentRecord,
    conversation: Conversation,
    thread: NewThread,
    passed: PassedBudget,
    round: { produced: StoredMessage[]; calls: NewModelCall[] },
  ): Promise<AgentStepResult> {
    const threadId = conversation.threadId ?? newId();
    const tool = `budget:${agent.name}`;
    const calls = round.calls.map((call) => ({ ...call, threadId }));
    const inserted = await this.threads.transaction(async (trx) => {
      if (conversation.threadId === null)
        await this.threads.create({ id: threadId, ...thread }, round.produced, trx);
      else await this.threads.append(threadId, round.produced, trx);
      await this.calls.record(calls, trx);
      return this.approvals.insertPending(
        [
          {
            kind: 'budget',
            organizationId: principal.organizationId,
            runId: request.runId,
            nodeId: request.nodeId,
            workflowId: request.workflowId,
            workflowName: request.workflowName,
            threadId,
            // One per wait: a step may pass a budget again in another month.
            toolCallId: `budget:${newId()}`,
            tool,
            action: tool,
            connectionId: '',
            input: { ...passed, month: monthOf(undefined).month },
          },
        ],
        this.config.APPROVAL_TTL_SECONDS,
        trx,
      );
    });
    this.upkeep.kick();
    const messages = [...conversation.history, ...round.produced];
    const approvals = [...conversation.approvals, ...inserted];
    const usage = stepUsageOf(await this.calls.forThread(threadId));
    const until = Math.min(...inserted.map((approval) => approval.expiresAt.getTime()));
    return {
      status: 'waiting',
      until: new Date(until).toISOString(),
      threadId,
      output: outputOf(lastAnswer(messages), threadId, messages, approvals, usage),
    };
  }
}
