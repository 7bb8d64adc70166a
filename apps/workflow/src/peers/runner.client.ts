import { type Principal, RunnerSubjects, type StartRunRequest } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

@Injectable()
export class RunnerClient {
  constructor(private readonly rpc: RpcClient) {}

  async startRun(principal: Principal, request: StartRunRequest): Promise<void> {
    await this.rpc.request(RunnerSubjects.runsStart, principal, request);
  }

  /**
   * Marks the workflow's unfinished runs `terminated`. Any failure, an unreachable or slow runner
   * included, fails the caller's delete (which rolls back and can be retried) rather than leaving runs
   * going for a workflow that no longer exists.
   */
  async terminateRunsOf(principal: Principal, workflowId: string): Promise<void> {
    await this.rpc.request(RunnerSubjects.runsTerminateForWorkflow, principal, { workflowId });
  }
}
