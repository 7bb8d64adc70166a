import {
  AgentSubjects,
  type CreateAgentDto,
  type IdAndBody,
  type IdRequest,
  type IdsRequest,
  type PageQueryDto,
  type Principal,
  type UpdateAgentDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { AgentsService } from './agents.service.js';

@Controller()
export class AgentsHandler {
  constructor(private readonly agents: AgentsService) {}

  @Handles(AgentSubjects.list)
  list(query: PageQueryDto, principal: Principal) {
    return this.agents.list(principal, query);
  }

  @Handles(AgentSubjects.create)
  create(input: CreateAgentDto, principal: Principal) {
    return this.agents.create(principal, input);
  }

  @Handles(AgentSubjects.get)
  get({ id }: IdRequest, principal: Principal) {
    return this.agents.get(principal, id);
  }

  @Handles(AgentSubjects.update)
  update({ id, body }: IdAndBody<UpdateAgentDto>, principal: Principal) {
    return this.agents.update(principal, id, body);
  }

  @Handles(AgentSubjects.existing)
  async existing({ ids }: IdsRequest, principal: Principal) {
    return { ids: await this.agents.existing(principal, ids) };
  }

  @Handles(AgentSubjects.delete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.agents.delete(principal, id);
  }
}
