import type { AgentProvider, ModelCallUsage, TokenUsage } from '#contracts';
import type { Insertable, Selectable } from 'kysely';

import type { AgentModelCalls } from '../agent.tables.js';

/** One model call to record: whose it was, where it was made, and its tokens. */
export interface NewModelCall extends ModelCallUsage {
  organizationId: string;
  /** Null for the assistant's calls (`agentName` is then `ASSISTANT_USAGE_NAME`). */
  agentId: string | null;
  agentName: string;
  provider: AgentProvider;
  /** The run and step of an Agent step; null in a chat. */
  runId: string | null;
  nodeId: string | null;
  /** Null when the conversation was not kept (the model failed before the step's thread was saved). */
  threadId: string | null;
}

/** A month's usage of one agent with one model. */
export interface UsageRow extends TokenUsage {
  agentId: string | null;
  agentName: string;
  provider: AgentProvider;
  model: string;
  calls: number;
}

export const toModelCallRow = (
  call: NewModelCall,
  id: string,
): Omit<Insertable<AgentModelCalls>, 'created_at'> => ({
  id,
  organization_id: call.organizationId,
  agent_id: call.agentId,
  agent_name: call.agentName,
  provider: call.provider,
  model: call.model,
  run_id: call.runId,
  node_id: call.nodeId,
  thread_id: call.threadId,
  input_tokens: call.inputTokens,
  output_tokens: call.outputTokens,
  reasoning_tokens: call.reasoningTokens,
  cached_input_tokens: call.cachedInputTokens,
});

export const toModelCallUsage = (
  row: Pick<
    Selectable<AgentModelCalls>,
    'provider' | 'model' | 'input_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cached_input_tokens'
  >,
): ModelCallUsage => ({
  provider: row.provider,
  model: row.model,
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
  reasoningTokens: row.reasoning_tokens,
  cachedInputTokens: row.cached_input_tokens,
});

/** Sums come back as text (`bigint`); a month's tokens stay far below 2^53. */
export const toUsageRow = (row: {
  agent_id: string | null;
  agent_name: string;
  provider: AgentProvider;
  model: string;
  calls: string | number;
  input_tokens: string | number;
  output_tokens: string | number;
  reasoning_tokens: string | number;
  cached_input_tokens: string | number;
}): UsageRow => ({
  agentId: row.agent_id,
  agentName: row.agent_name,
  provider: row.provider,
  model: row.model,
  calls: Number(row.calls),
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  reasoningTokens: Number(row.reasoning_tokens),
  cachedInputTokens: Number(row.cached_input_tokens),
});
