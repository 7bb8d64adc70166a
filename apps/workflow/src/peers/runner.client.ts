import { DomainException } from '#common';
import { type Principal, RunnerSubjects, type StartRunRequest } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { logger } from '../workflow.logger.js';

@Injectable()
export class RunnerClient {
  constructor(private readonly rpc: RpcClient) {}

  async startRun(principal: Principal, request: StartRunRequest): Promise<void> {
    await this.rpc.request(RunnerSubjects.runsStart, principal, request);
  }

  /**
   * Marks the workflow's unfinished runs `terminated`. A deployment without a runner has no runs to
   * end, so "nobody answers" is logged and passed over; any other failure is the caller's to handle.
   */
  async terminateRunsOf(principal: Principal, workflowId: string): Promise<void> {
    try {
      await this.rpc.request(RunnerSubjects.runsTerminateForWorkflow, principal, { workflowId });
    } catch (error) {
      if (!(error instanceof DomainException) || error.code !== 'service_unavailable') throw error;
      logger.warn({ workflowId, reason: error.message }, 'no runner answered; runs were not terminated');
    }
  }
}
