import { AgentSubjects, type DecideApprovalRequest, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { Approvals } from './approvals.service.js';

@Controller()
export class ApprovalsHandler {
  constructor(private readonly approvals: Approvals) {}

  @Handles(AgentSubjects.approvalsDecide)
  decide(request: DecideApprovalRequest, principal: Principal) {
    return this.approvals.decide(principal, request);
  }

  @Handles(AgentSubjects.approvalsPending)
  pending(_request: object, principal: Principal) {
    return this.approvals.pending(principal);
  }
}
