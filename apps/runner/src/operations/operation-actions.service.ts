import { EventsSubjects } from '#contracts';
import { RpcClient } from '#nats';
import { Inject, Injectable } from '@nestjs/common';

import type { HeldOperation } from './operation.record.js';
import { OperationRepository } from './operation.repository.js';
import { RUN_ACTIONS, type RunActions } from './run-actions.js';

/** What acting on one target made: the new run of a rerun, nothing otherwise. */
export interface Acted {
  resultId: string | null;
}

/** A cancel that reached its run leaves it in one of these (or it had ended that way already). */
const CANCELLED = new Set(['terminated', 'rollingBack']);

/** Each action of an operation on one target, and how to tell whether an interrupted one took effect. */
@Injectable()
export class OperationActions {
  constructor(
    @Inject(RUN_ACTIONS) private readonly runs: RunActions,
    private readonly rpc: RpcClient,
    private readonly operations: OperationRepository,
  ) {}

  async act(operation: HeldOperation, targetId: string): Promise<Acted> {
    switch (operation.action) {
      case 'cancel':
        await this.runs.cancel(operation.principal, targetId, {
          ...(operation.params.reason === undefined ? {} : { reason: operation.params.reason }),
        });
        return { resultId: null };
      case 'rerun':
        return { resultId: (await this.runs.rerun(operation.principal, targetId, {})).id };
      case 'replay': {
        const replay = operation.params.replay;
        if (!replay || operation.workflowId === null)
          throw new Error('a replay names its workflow and trigger');
        // The replay's own id: sent again after a crash, JetStream queues it once.
        await this.rpc.request(EventsSubjects.eventsReplay, operation.principal, {
          workflowId: operation.workflowId,
          eventId: targetId,
          triggerNodeId: replay.triggerNodeId,
          replayId: `${operation.id}:${targetId}`,
        });
        return { resultId: null };
      }
    }
  }

  /**
   * Whether an action a previous holder began at `since` took effect: a cancelled run, or a rerun
   * made since. Null when it did not, or cannot be told (a replay, which is safe to send again).
   */
  async tookEffect(operation: HeldOperation, targetId: string, since: Date): Promise<Acted | null> {
    switch (operation.action) {
      case 'cancel': {
        const status = await this.operations.runStatus(operation.organizationId, targetId);
        return status !== null && CANCELLED.has(status) ? { resultId: null } : null;
      }
      case 'rerun': {
        const rerun = await this.operations.rerunSince(operation.organizationId, targetId, since);
        return rerun === null ? null : { resultId: rerun };
      }
      case 'replay':
        return null;
    }
  }
}
