import type { Page } from '#common';

import { type AuditListReply, AuditListRequest } from '../audit/audit.messages.js';
import type { DeletedDto } from '../common/deleted.dto.js';
import { PageQueryDto } from '../common/page.dto.js';
import type { AgentOverview } from '../dashboard/overview.messages.js';
import { EmptyRequest, IdAndBodyOf, IdAndQueryRequest, IdRequest } from '../messaging/common-requests.js';
import { returns, rpc, streamedRpc } from '../messaging/subject-catalog.js';
import { AgentChatRequest } from './agent-chat.request.js';
import { AssistantTurnRequest } from './assistant.dto.js';
import {
  type AgentDto,
  AgentStepRequest,
  type AgentStepResult,
  CreateAgentDto,
  type ExistingIds,
  IdsRequest,
  UpdateAgentDto,
} from './agent.dto.js';
import { type ApprovalDecisionDto, DecideApprovalRequest } from './approval.dto.js';
import type { UiMessageChunk } from './chat-stream.protocol.js';
import { SetUsageBudgetDto, type UsageBudgetDto, type UsageDto, UsageQueryDto } from '../usage/usage.dto.js';
import { AgentThreadRequest, type ThreadDetailDto, type ThreadDto } from './thread.dto.js';

export const AgentSubjects = {
  list: rpc('agent.agents.list', PageQueryDto, { callers: ['gateway'], reply: returns<Page<AgentDto>>() }),
  create: rpc('agent.agents.create', CreateAgentDto, { callers: ['gateway'], reply: returns<AgentDto>() }),
  get: rpc('agent.agents.get', IdRequest, { callers: ['gateway'], reply: returns<AgentDto>() }),
  update: rpc('agent.agents.update', IdAndBodyOf(UpdateAgentDto), {
    callers: ['gateway'],
    reply: returns<AgentDto>(),
  }),
  /** Which of these agents exist in the caller's organization (publish rule 5). */
  existing: rpc('agent.agents.existing', IdsRequest, {
    callers: ['workflow'],
    reply: returns<ExistingIds>(),
  }),
  /** Runs one Agent step (the runner's `agent` node): the agent answers the task in a new thread. */
  stepsRun: rpc('agent.steps.run', AgentStepRequest, {
    callers: ['runner'],
    reply: returns<AgentStepResult>(),
    working: true,
  }),
  /** The agent's threads, newest first: the browser's `/app/agents/{id}/threads` (sessions only). */
  threadsList: rpc('agent.threads.list', IdAndQueryRequest, {
    callers: ['gateway'],
    reply: returns<Page<ThreadDto>>(),
  }),
  /** One thread with its messages, in order. */
  threadsGet: rpc('agent.threads.get', AgentThreadRequest, {
    callers: ['gateway'],
    reply: returns<ThreadDetailDto>(),
  }),
  /**
   * Decides an ask-first call: approving runs the action; either way the waiting step is woken to
   * resume. Exactly one decision (or the expiry) wins.
   */
  approvalsDecide: rpc('agent.approvals.decide', DecideApprovalRequest, {
    callers: ['gateway'],
    reply: returns<ApprovalDecisionDto>(),
  }),
  /**
   * For the dashboard and billing: how many agents the organization has, and its approvals waiting
   * for a decision, the soonest to expire first.
   */
  overview: rpc('agent.overview.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<AgentOverview>(),
  }),
  /**
   * One turn of a member's chat (the browser's `POST /app/agents/{id}/chat`), answered in many
   * messages as the model produces it: see `chat-stream.protocol.ts`.
   */
  chatStream: streamedRpc('agent.chat.stream', AgentChatRequest, {
    callers: ['gateway'],
    chunk: returns<UiMessageChunk>(),
  }),
  /**
   * One turn of a member's conversation with the assistant (the browser's `POST /app/assistant`),
   * streamed like a chat turn: see `chat-stream.protocol.ts`.
   */
  assistantStream: streamedRpc('agent.assistant.stream', AssistantTurnRequest, {
    callers: ['gateway'],
    chunk: returns<UiMessageChunk>(),
  }),
  /** The organization's model usage of a month by agent and model, with its estimated cost (and billing's). */
  usageGet: rpc('agent.usage.get', UsageQueryDto, { callers: ['gateway'], reply: returns<UsageDto>() }),
  /** Sets the organization's monthly token budget (owners only). */
  usageBudgetSet: rpc('agent.usage.budget.set', SetUsageBudgetDto, {
    callers: ['gateway'],
    reply: returns<UsageBudgetDto>(),
  }),
  /** The agent and its threads. */
  delete: rpc('agent.agents.delete', IdRequest, { callers: ['gateway'], reply: returns<DeletedDto>() }),
  /** A page of this service's audit entries for the gateway's `GET /api/v1/audit`, which merges them. */
  auditList: rpc('agent.audit.list', AuditListRequest, {
    callers: ['gateway'],
    reply: returns<AuditListReply>(),
  }),
} as const;
