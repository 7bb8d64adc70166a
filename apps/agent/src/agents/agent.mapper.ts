import { isDeepStrictEqual } from 'node:util';

import type { AgentProvider, ThinkingLevel } from '#contracts';
import type { Selectable, Updateable } from 'kysely';

import type { AgentAgents } from '../agent.tables.js';

/** Per app connection, the actions an agent may call, and those that wait for approval first. */
export interface AppGrant {
  connectionId: string;
  integrationId: string;
  actions: string[];
  approvals: string[];
}

export interface AgentRecord {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  instructions: string;
  provider: AgentProvider;
  model: string;
  thinkingLevel: ThinkingLevel;
  apps: AppGrant[];
  skills: string[];
  databases: string[];
  databaseWrites: string[];
  /** Tokens (input + output) the agent may use in a UTC month before a step waits for an owner. */
  monthlyTokenBudget: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a member sets on an agent. */
export type AgentFields = Omit<AgentRecord, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>;

export const toAgentRecord = (row: Selectable<AgentAgents>): AgentRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  description: row.description,
  instructions: row.instructions,
  provider: row.provider,
  model: row.model,
  thinkingLevel: row.thinking_level,
  apps: row.apps,
  skills: row.skills,
  databases: row.databases,
  databaseWrites: row.database_writes,
  monthlyTokenBudget: row.monthly_token_budget === null ? null : Number(row.monthly_token_budget),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

type AgentColumns = Required<
  Omit<Updateable<AgentAgents>, 'id' | 'organization_id' | 'created_at' | 'updated_at'>
>;

/** The columns of these fields (Kysely leaves out those `undefined`); `apps` is written as its JSON text. */
export function toAgentColumns(fields: AgentFields): AgentColumns;
export function toAgentColumns(fields: Partial<AgentFields>): Partial<AgentColumns>;
export function toAgentColumns(fields: Partial<AgentFields>): Partial<AgentColumns> {
  return {
    name: fields.name,
    description: fields.description,
    instructions: fields.instructions,
    provider: fields.provider,
    model: fields.model,
    thinking_level: fields.thinkingLevel,
    apps: fields.apps === undefined ? undefined : JSON.stringify(fields.apps),
    skills: fields.skills,
    databases: fields.databases,
    database_writes: fields.databaseWrites,
    monthly_token_budget: fields.monthlyTokenBudget,
  };
}

/** The changes that change something: an update that changes nothing leaves the agent as it was. */
export function changedFields(agent: AgentRecord, changes: Partial<AgentFields>): Partial<AgentFields> {
  return Object.fromEntries(
    Object.entries(changes).filter(
      ([field, value]) => value !== undefined && !isDeepStrictEqual(agent[field as keyof AgentFields], value),
    ),
  );
}
