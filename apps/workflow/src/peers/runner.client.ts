import { type Principal, RunnerSubjects, type StartRunRequest, type StartRunsResult } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

@Injectable()
export class RunnerClient {
  constructor(private readonly rpc: RpcClient) {}

  /** Starts many runs of the organization at once: each start's result in its place. */
  async startRuns(principal: Principal, starts: StartRunRequest[]): Promise<StartRunsResult[]> {
    const { results } = await this.rpc.request(RunnerSubjects.runsStartMany, principal, { starts });
    return results;
  }

  /**
   * Terminates the unfinished runs of deleted workflows, and keeps any run of them from being
   * recorded afterwards. Throws when the runner does not answer within `timeoutMs` (the client's
   * own timeout by default).
   */
  /** Terminates the workflows' scheduled runs written before their due time and still held for it. */
  async terminateScheduledRunsOf(
    principal: Principal,
    workflowIds: string[],
    timeoutMs?: number,
  ): Promise<number> {
    const { terminated } = await this.rpc.request(
      RunnerSubjects.runsTerminateScheduled,
      principal,
      { workflowIds },
      timeoutMs,
    );
    return terminated;
  }

  async terminateRunsOf(principal: Principal, workflowIds: string[], timeoutMs?: number): Promise<void> {
    await this.rpc.request(RunnerSubjects.runsTerminateForWorkflows, principal, { workflowIds }, timeoutMs);
  }
}
