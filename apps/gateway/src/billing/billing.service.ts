import {
  AgentSubjects,
  type BillingDto,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  type Principal,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

/**
 * Billing: catalog knows the plan, the projects and the month's runs; each other limited resource is
 * counted by the service that holds it, asked in parallel, and the agent service adds this month's
 * model usage.
 */
@Injectable()
export class BillingService {
  constructor(private readonly rpc: RpcClient) {}

  async get(principal: Principal): Promise<BillingDto> {
    const [billing, databases, agents, events, models] = await Promise.all([
      this.rpc.request(CatalogSubjects.billingGet, principal, {}),
      this.rpc.request(DatabaseSubjects.overview, principal, {}),
      this.rpc.request(AgentSubjects.overview, principal, {}),
      this.rpc.request(EventsSubjects.overview, principal, {}),
      this.rpc.request(AgentSubjects.usageGet, principal, {}),
    ]);
    return {
      ...billing,
      usage: {
        ...billing.usage,
        databases: databases.databases,
        storage: databases.storageBytes,
        databaseStorage: databases.largestDatabaseBytes,
        agents: agents.agents,
        subscriptions: events.subscriptions,
      },
      // An extension: this month's model usage, as the agent service counts and prices it.
      modelUsage: { month: models.month, ...models.totals, monthlyTokenBudget: models.monthlyTokenBudget },
    };
  }
}
