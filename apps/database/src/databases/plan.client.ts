import { CatalogSubjects, type PlanCheckRequest, type Principal } from '#contracts';
import type { RpcClient } from '#nats';

/** Asks catalog, which owns plans, whether one more database fits the organization's plan. */
export class PlanClient {
  constructor(private readonly rpc: RpcClient) {}

  /** Answers the limit, or throws plan_limit_reached with `details.resource` and `details.limit`. */
  async checkDatabases(principal: Principal, current: number): Promise<number> {
    const request: PlanCheckRequest = { resource: 'databases', current };
    const { limit } = await this.rpc.request(CatalogSubjects.planCheck, principal, request);
    return limit;
  }
}
