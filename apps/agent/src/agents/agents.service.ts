import { DomainException, type Page } from '#common';
import {
  type AgentDto,
  CatalogSubjects,
  type CreateAgentDto,
  type DeletedDto,
  type PageQueryDto,
  type Principal,
  type UpdateAgentDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { isId, mapPage } from '#persistence';
import { Injectable } from '@nestjs/common';

import type { AgentFields, AgentRecord } from './agent.mapper.js';
import { AgentNameTakenError, AgentRepository } from './agent.repository.js';
import { GrantCheck } from './grant-check.service.js';

export const toAgentDto = (agent: AgentRecord): AgentDto => ({
  id: agent.id,
  name: agent.name,
  description: agent.description,
  instructions: agent.instructions,
  provider: agent.provider,
  model: agent.model,
  thinkingLevel: agent.thinkingLevel,
  apps: agent.apps.map(({ connectionId, integrationId, actions, approvals }) => ({
    connectionId,
    integrationId,
    actions,
    approvals,
  })),
  skills: agent.skills,
  databases: agent.databases,
  databaseWrites: agent.databaseWrites,
  monthlyTokenBudget: agent.monthlyTokenBudget,
  createdAt: agent.createdAt.toISOString(),
  updatedAt: agent.updatedAt.toISOString(),
});

const GRANT_FIELDS = ['apps', 'skills', 'databases', 'databaseWrites'] as const;

/** What a grant list keeps of an input: the fields the contract names, nothing else. */
function grantFields(input: CreateAgentDto | UpdateAgentDto): Partial<AgentFields> {
  return {
    ...(input.apps === undefined
      ? {}
      : {
          apps: input.apps.map(({ connectionId, integrationId, actions, approvals }) => ({
            connectionId,
            integrationId,
            actions: [...new Set(actions)],
            approvals: [...new Set(approvals)],
          })),
        }),
    ...(input.skills === undefined ? {} : { skills: [...new Set(input.skills)] }),
    ...(input.databases === undefined ? {} : { databases: [...new Set(input.databases)] }),
    ...(input.databaseWrites === undefined ? {} : { databaseWrites: [...new Set(input.databaseWrites)] }),
  };
}

/**
 * A budget is what makes a step wait for an owner's approval, so only an owner sets or changes it
 * (an extension: the contract lets any member edit an agent, and still does for every other field).
 */
function assertBudgetSetter(principal: Principal, from: number | null, to: number | null | undefined): void {
  if (to === undefined || to === from || principal.role === 'owner') return;
  throw new DomainException(
    'forbidden',
    "Only the organization's owners set an agent's monthly token budget.",
  );
}

const nameTaken = (name: string) =>
  new DomainException('agent_name_taken', `An agent named ${name} already exists in this organization.`);

@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentRepository,
    private readonly grants: GrantCheck,
    private readonly rpc: RpcClient,
  ) {}

  async list(principal: Principal, query: PageQueryDto): Promise<Page<AgentDto>> {
    return mapPage(await this.agents.list(principal.organizationId, query), toAgentDto);
  }

  async get(principal: Principal, id: string): Promise<AgentDto> {
    return toAgentDto(await this.findOwned(principal, id));
  }

  /** Checked with the grants' owners and the plan first; then counted and saved under the lock. */
  async create(principal: Principal, input: CreateAgentDto): Promise<AgentDto> {
    const fields: AgentFields = {
      name: input.name,
      description: input.description ?? '',
      instructions: input.instructions ?? '',
      provider: input.provider ?? 'gateway',
      model: input.model ?? '',
      thinkingLevel: input.thinkingLevel ?? 'medium',
      apps: [],
      skills: [],
      databases: [],
      databaseWrites: [],
      monthlyTokenBudget: input.monthlyTokenBudget ?? null,
      ...grantFields(input),
    };
    assertBudgetSetter(principal, null, input.monthlyTokenBudget);
    await this.grants.assertValid(principal, fields);
    const { limits } = await this.rpc.request(CatalogSubjects.planLimits, principal, {});
    try {
      const created = await this.agents.lockedFor(principal.organizationId, async (trx) => {
        if ((await this.agents.count(principal.organizationId, trx)) >= limits.agents) {
          throw DomainException.planLimit('agents', limits.agents);
        }
        return this.agents.insert(principal.organizationId, fields, trx, principal);
      });
      return toAgentDto(created);
    } catch (error) {
      if (error instanceof AgentNameTakenError) throw nameTaken(input.name);
      throw error;
    }
  }

  async update(principal: Principal, id: string, input: UpdateAgentDto): Promise<AgentDto> {
    const agent = await this.findOwned(principal, id);
    assertBudgetSetter(principal, agent.monthlyTokenBudget, input.monthlyTokenBudget);
    const changes: Partial<AgentFields> = {
      ...Object.fromEntries(
        (
          [
            'name',
            'description',
            'instructions',
            'provider',
            'model',
            'thinkingLevel',
            'monthlyTokenBudget',
          ] as const
        )
          .filter((field) => input[field] !== undefined)
          .map((field) => [field, input[field]]),
      ),
      ...grantFields(input),
    };
    if (GRANT_FIELDS.some((field) => input[field] !== undefined)) {
      await this.grants.assertValid(principal, {
        apps: changes.apps ?? agent.apps,
        skills: changes.skills ?? agent.skills,
        databases: changes.databases ?? agent.databases,
        databaseWrites: changes.databaseWrites ?? agent.databaseWrites,
      });
    }
    try {
      const updated = await this.agents.update(agent, changes, principal);
      if (!updated) throw DomainException.notFound('agent', id);
      return toAgentDto(updated);
    } catch (error) {
      if (error instanceof AgentNameTakenError) throw nameTaken(input.name ?? agent.name);
      throw error;
    }
  }

  async delete(principal: Principal, id: string): Promise<DeletedDto> {
    if (!isId(id) || !(await this.agents.delete(principal.organizationId, id, principal))) {
      throw DomainException.notFound('agent', id);
    }
    return { deleted: true };
  }

  existing(principal: Principal, ids: string[]): Promise<string[]> {
    return this.agents.existing(principal.organizationId, ids);
  }

  count(principal: Principal): Promise<number> {
    return this.agents.count(principal.organizationId);
  }

  private async findOwned(principal: Principal, id: string): Promise<AgentRecord> {
    const agent = isId(id) ? await this.agents.find(principal.organizationId, id) : null;
    if (!agent) throw DomainException.notFound('agent', id);
    return agent;
  }
}
