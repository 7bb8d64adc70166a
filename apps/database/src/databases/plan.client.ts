import { CatalogSubjects, type PlanResource, type Principal } from '#contracts';
import type { RpcClient } from '#nats';

/** Asks catalog, which owns plans, what the organization's plan allows. */
export class PlanClient {
  constructor(private readonly rpc: RpcClient) {}

  async limits(principal: Principal): Promise<Record<PlanResource, number>> {
    return (await this.rpc.request(CatalogSubjects.planLimits, principal, {})).limits;
  }
}
