import { DomainException, type Page } from '#common';
import type { PageQueryDto, Principal, ThreadDetailDto, ThreadDto } from '#contracts';
import { isId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { AgentRepository } from '../agents/agent.repository.js';
import { ThreadRepository } from './thread.repository.js';

/** Members reading an agent's threads (the browser's `/app/agents/{id}/threads`). */
@Injectable()
export class ThreadsService {
  constructor(
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
  ) {}

  async list(principal: Principal, agentId: string, query: PageQueryDto): Promise<Page<ThreadDto>> {
    await this.assertAgent(principal, agentId);
    return this.threads.list(principal.organizationId, agentId, query);
  }

  async get(principal: Principal, agentId: string, threadId: string): Promise<ThreadDetailDto> {
    await this.assertAgent(principal, agentId);
    const thread = await this.threads.get(principal.organizationId, agentId, threadId);
    if (!thread) throw new DomainException('not_found', `No thread ${threadId} of this agent.`);
    return thread;
  }

  private async assertAgent(principal: Principal, agentId: string): Promise<void> {
    const agent = isId(agentId) ? await this.agents.find(principal.organizationId, agentId) : null;
    if (!agent) throw DomainException.notFound('agent', agentId);
  }
}
