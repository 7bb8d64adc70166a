import { AgentSubjects, type Principal } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

/** Organization agents belong to the agent service. */
@Injectable()
export class AgentsClient {
  constructor(private readonly rpc: RpcClient) {}

  /** The ids among `ids` of the organization's agents. */
  async existing(principal: Principal, ids: string[]): Promise<Set<string>> {
    return new Set((await this.rpc.request(AgentSubjects.existing, principal, { ids })).ids);
  }
}
