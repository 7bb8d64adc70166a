import { CatalogSubjects, type Principal } from '#contracts';
import type { RpcClient } from '#nats';

/** Asks catalog, which owns plans, how many databases the organization's plan allows. */
export class PlanClient {
  constructor(private readonly rpc: RpcClient) {}

  async databaseLimit(principal: Principal): Promise<number> {
    const { limits } = await this.rpc.request(CatalogSubjects.planLimits, principal, {});
    return limits.databases;
  }
}
