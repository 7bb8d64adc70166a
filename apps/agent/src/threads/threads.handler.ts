import { type AgentThreadRequest, AgentSubjects, type IdAndQueryRequest, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { ThreadsService } from './threads.service.js';

@Controller()
export class ThreadsHandler {
  constructor(private readonly threads: ThreadsService) {}

  @Handles(AgentSubjects.threadsList)
  list({ id, query }: IdAndQueryRequest, principal: Principal) {
    return this.threads.list(principal, id, query);
  }

  @Handles(AgentSubjects.threadsGet)
  get({ agentId, threadId }: AgentThreadRequest, principal: Principal) {
    return this.threads.get(principal, agentId, threadId);
  }
}
