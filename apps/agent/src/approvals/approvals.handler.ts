import { type AgentOverview, AgentSubjects, type DecideApprovalRequest, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { AgentsService } from '../agents/agents.service.js';
import { Approvals } from './approvals.service.js';

@Controller()
export class ApprovalsHandler {
  constructor(
    private readonly approvals: Approvals,
    private readonly agents: AgentsService,
  ) {}

  @Handles(AgentSubjects.approvalsDecide)
  decide(request: DecideApprovalRequest, principal: Principal) {
    return this.approvals.decide(principal, request);
  }

  /** The dashboard's approvals and billing's agent count. */
  @Handles(AgentSubjects.overview)
  async overview(_request: object, principal: Principal): Promise<AgentOverview> {
    const [agents, approvals] = await Promise.all([
      this.agents.count(principal),
      this.approvals.pending(principal),
    ]);
    return { agents, approvals };
  }
}
