import type { ModelCallUsage } from '#contracts';
import type { ModelMessage } from 'ai';
import type { Selectable } from 'kysely';

import type { AgentMessages, AgentThreads } from '../agent.tables.js';
import type { StoredMessage } from '../usage/model-usage.util.js';

/** Who said a message, as the AI SDK models it. */
export type MessageRole = ModelMessage['role'];

/** A conversation with an agent: one per Agent step run, or a member's chat. */
export interface ThreadRecord {
  id: string;
  organizationId: string;
  agentId: string;
  title: string;
  /** The run whose Agent step started it; null for a member's chat. */
  runId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ThreadMessageRecord {
  role: MessageRole;
  content: unknown;
  /** The tokens of the model call that produced an assistant message. */
  usage: ModelCallUsage | null;
  createdAt: Date;
}

export interface ThreadWithMessages extends ThreadRecord {
  messages: ThreadMessageRecord[];
}

export interface NewThread {
  /** Set when the caller had to name the thread before (a chat's first turn). */
  id?: string;
  organizationId: string;
  agentId: string;
  title: string;
  runId: string | null;
}

export const toThreadRecord = (row: Selectable<AgentThreads>): ThreadRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  title: row.title,
  runId: row.run_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toThreadMessageRecord = (
  row: Pick<Selectable<AgentMessages>, 'role' | 'content' | 'usage' | 'created_at'>,
): ThreadMessageRecord => ({
  role: row.role,
  content: row.content,
  usage: row.usage,
  createdAt: row.created_at,
});

/** A stored message as the model reads it: the role and content it was saved with. */
export const toModelMessage = (row: Pick<Selectable<AgentMessages>, 'role' | 'content'>): ModelMessage =>
  ({ role: row.role, content: row.content }) as ModelMessage;

/**
 * Messages as one array per column, for `unnest`: positions count from 0, contents and usages are
 * JSON text (a usage null but on an assistant message that a model call produced).
 */
export const messageColumns = (messages: readonly StoredMessage[]) => ({
  positions: messages.map((_, index) => index),
  roles: messages.map((message) => message.role),
  contents: messages.map((message) => JSON.stringify(message.content)),
  usages: messages.map((message) => (message.usage ? JSON.stringify(message.usage) : null)),
});
