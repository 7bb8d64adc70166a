import { DomainException } from '#common';
import {
  type ApprovalDecisionDto,
  type DecideApprovalRequest,
  type PendingApprovalDto,
  type Principal,
  type RunCancelledEvent,
  RunnerSubjects,
  type RunStatus,
  servicePrincipal,
  type StepApproval,
} from '#contracts';
import { RpcClient, RunCancellations } from '#nats';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';

import { LOGGER } from '../agent.tokens.js';
import { actionKey, AgentTools } from '../steps/agent-tools.js';
import type { ApprovalRecord, PendingApproval, StepRef } from './approval.mapper.js';
import { ApprovalRepository } from './approval.repository.js';
import { ApprovalUpkeepRepository } from './approval-upkeep.repository.js';
import { isDecidable } from './decidable.util.js';

/** The dashboard lists this many pending approvals at most. */
const PENDING_LIST_MAX = 100;

export function toDecision(approval: ApprovalRecord): ApprovalDecisionDto {
  return {
    id: approval.id,
    status: approval.status,
    tool: approval.action,
    reason: approval.reason,
    result:
      approval.status !== 'approved' || approval.settledAt === null
        ? null
        : approval.error === null
          ? approval.result
          : { error: approval.error },
  };
}

const toPendingApprovalDto = (approval: PendingApproval): PendingApprovalDto => ({
  runId: approval.runId,
  workflowId: approval.workflowId,
  workflowName: approval.workflowName,
  tool: approval.action,
  expiresAt: approval.expiresAt.toISOString(),
});

export function toStepApproval(approval: ApprovalRecord): StepApproval {
  return {
    id: approval.id,
    tool: approval.action,
    input: approval.input,
    status: approval.status,
    reason: approval.reason,
  };
}

/** Who decided, as kept with the decision. */
function deciderOf(principal: Principal): string | null {
  if (principal.userId) return `user:${principal.userId}`;
  return principal.keyId ? `key:${principal.keyId}` : null;
}

/**
 * Decisions on ask-first calls. A decision is taken in one statement that also checks the expiry, so
 * exactly one of two decisions, or of a decision and the expiry, wins. An approved action runs here,
 * once, and its outcome is kept for the step to resume with; then the waiting step is woken (and,
 * should the runner not take it yet, woken again by the upkeep until it does). A cancel of the run
 * closes its pending approvals (denied, with the cancel's message as the reason).
 */
@Injectable()
export class Approvals implements OnModuleInit {
  constructor(
    private readonly approvals: ApprovalRepository,
    private readonly upkeep: ApprovalUpkeepRepository,
    private readonly tools: AgentTools,
    private readonly rpc: RpcClient,
    private readonly cancellations: RunCancellations,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.cancellations.onCancel((event) => this.closeForCancel(event));
  }

  /**
   * The run was cancelled: its pending approvals can no longer be decided. Should this notice be
   * missed, a decision finds the run final and closes them then (`refuse`).
   */
  private async closeForCancel({ organizationId, runId, message }: RunCancelledEvent): Promise<void> {
    const closed = await this.approvals.closeForRun(organizationId, runId, message);
    if (closed > 0) this.logger.info({ runId, closed }, 'closed the approvals of a cancelled run');
  }

  async decide(principal: Principal, request: DecideApprovalRequest): Promise<ApprovalDecisionDto> {
    const { runId, approvalId, body } = request;
    // Answers run_not_found for a run that is not the organization's.
    const run = await this.rpc.request(RunnerSubjects.runsGet, principal, { id: runId });
    const taken = isDecidable(run.status)
      ? await this.approvals.decide(
          principal.organizationId,
          runId,
          approvalId,
          {
            status: body.decision === 'approve' ? 'approved' : 'denied',
            reason: body.reason ?? null,
            decidedBy: deciderOf(principal),
          },
          principal,
          // Letting a step pass a token budget is an owner's call (docs/usage.md).
          principal.role === 'owner' ? ['action', 'budget'] : ['action'],
        )
      : null;
    if (!taken) return this.refuse(principal, runId, run.status, approvalId);
    // A budget approval runs nothing: the step goes on with its model calls when woken.
    const decided =
      taken.status === 'approved' && taken.kind === 'action' ? await this.settle(principal, taken) : taken;
    await this.wake(decided).catch((error: unknown) =>
      this.logger.warn({ err: error, runId }, 'waking the run after a decision failed; the upkeep retries'),
    );
    return toDecision(decided);
  }

  /** Why a decision was not taken: an unknown approval, one already decided or expired, or a run that ended. */
  private async refuse(
    principal: Principal,
    runId: string,
    runStatus: RunStatus,
    approvalId: string,
  ): Promise<never> {
    const found = await this.approvals.find(principal.organizationId, approvalId);
    if (!found || found.runId !== runId) throw DomainException.notFound('approval', approvalId);
    if (found.kind === 'budget' && found.status === 'pending' && principal.role !== 'owner') {
      throw new DomainException(
        'forbidden',
        "Only the organization's owners decide whether a step may pass a token budget.",
      );
    }
    // Expired is said the same whether the runner's timer or this decision noticed the deadline first.
    if (found.status === 'expired') {
      throw new DomainException('approval_not_pending', 'The approval expired without a decision.');
    }
    if (found.status !== 'pending') {
      const why = found.status === 'denied' && found.reason !== null ? ` (${found.reason})` : '';
      throw new DomainException('approval_not_pending', `The approval was already ${found.status}${why}.`);
    }
    if (found.expiresAt.getTime() <= Date.now()) {
      // Its time ran out and nothing has expired it yet: expire it now and let the step fail.
      await this.approvals.expireDue(found.organizationId, found.runId, found.nodeId);
      await this.wake(found).catch(() => undefined);
      throw new DomainException('approval_not_pending', 'The approval expired without a decision.');
    }
    await this.approvals.supersede(found.organizationId, runId, found.nodeId, `The run is ${runStatus}.`);
    throw new DomainException(
      'approval_not_pending',
      `The run is ${runStatus}: its approvals can no longer be decided.`,
    );
  }

  /**
   * The outcome of an approved call, for the resumed step: kept when it was approved, or, when the
   * decision was cut off before it could keep it, run now with the same idempotency key.
   */
  async outcomeOf(principal: Principal, approval: ApprovalRecord): Promise<unknown> {
    const settled = approval.settledAt === null ? await this.settle(principal, approval) : approval;
    if (settled.error !== null) throw new Error(settled.error);
    return settled.result;
  }

  /** Runs the approved action and keeps its outcome, a failure included. */
  private async settle(principal: Principal, approval: ApprovalRecord): Promise<ApprovalRecord> {
    let outcome: { result: unknown } | { error: string };
    try {
      outcome = {
        result: await this.tools.runAction(principal, {
          action: approval.action,
          connectionId: approval.connectionId,
          input: approval.input,
          idempotencyKey: actionKey(approval, approval.toolCallId),
          runId: approval.runId,
        }),
      };
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) };
    }
    // Another settle won (a resume racing a slow decision): its outcome is the one kept.
    return (
      (await this.approvals.settle(approval.organizationId, approval.id, outcome)) ??
      (await this.approvals.find(approval.organizationId, approval.id)) ??
      approval
    );
  }

  /**
   * Asks the runner to run the step now; true once it did (or there is nothing left to wake). Only
   * the decisions made before the request are marked woken: one made meanwhile gets its own wake.
   */
  async wake(step: StepRef): Promise<boolean> {
    const decided = await this.upkeep.unwokenOfStep(step);
    const { woken } = await this.rpc.request(RunnerSubjects.runsWake, servicePrincipal(step.organizationId), {
      runId: step.runId,
      nodeId: step.nodeId,
    });
    if (woken) await this.upkeep.markWoken(step.organizationId, decided);
    return woken;
  }

  async pending(principal: Principal): Promise<PendingApprovalDto[]> {
    return (await this.approvals.pending(principal.organizationId, PENDING_LIST_MAX)).map(
      toPendingApprovalDto,
    );
  }
}
