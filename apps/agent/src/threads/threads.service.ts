import { DomainException, type Page } from '#common';
import type { PageQueryDto, Principal, ThreadDetailDto, ThreadDto } from '#contracts';
import { isId, mapPage } from '#persistence';
import { Injectable } from '@nestjs/common';

import { AgentRepository } from '../agents/agent.repository.js';
import type { ThreadRecord, ThreadWithMessages } from './thread.mapper.js';
import { ThreadRepository } from './thread.repository.js';

const toThreadDto = (thread: ThreadRecord): ThreadDto => ({
  id: thread.id,
  agentId: thread.agentId,
  title: thread.title,
  runId: thread.runId,
  createdAt: thread.createdAt.toISOString(),
  updatedAt: thread.updatedAt.toISOString(),
});

const toThreadDetailDto = (thread: ThreadWithMessages): ThreadDetailDto => ({
  ...toThreadDto(thread),
  messages: thread.messages.map((message) => ({
    role: message.role,
    content: message.content,
    usage: message.usage,
    createdAt: message.createdAt.toISOString(),
  })),
});

/** Members reading an agent's threads (the browser's `/app/agents/{id}/threads`). */
@Injectable()
export class ThreadsService {
  constructor(
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
  ) {}

  async list(principal: Principal, agentId: string, query: PageQueryDto): Promise<Page<ThreadDto>> {
    await this.assertAgent(principal, agentId);
    return mapPage(await this.threads.list(principal.organizationId, agentId, query), toThreadDto);
  }

  async get(principal: Principal, agentId: string, threadId: string): Promise<ThreadDetailDto> {
    await this.assertAgent(principal, agentId);
    const thread = await this.threads.get(principal.organizationId, agentId, threadId);
    if (!thread) throw new DomainException('not_found', `No thread ${threadId} of this agent.`);
    return toThreadDetailDto(thread);
  }

  private async assertAgent(principal: Principal, agentId: string): Promise<void> {
    const agent = isId(agentId) ? await this.agents.find(principal.organizationId, agentId) : null;
    if (!agent) throw DomainException.notFound('agent', agentId);
  }
}
