import {
  AgentSubjects,
  BillingDto,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  type Principal,
} from '#contracts';
import { RpcClient } from '#nats';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

@ApiTags('billing')
@Controller('api/v1/billing')
export class BillingController {
  constructor(private readonly rpc: RpcClient) {}

  /** Catalog knows the plan, projects and runs; each other service counts what it holds. */
  @Get()
  @ApiOperation({ summary: "Get the organization's plan, every limit and the current usage" })
  @ApiOkResponse({ type: BillingDto })
  @ApiErrors()
  async get(@CurrentPrincipal() principal: Principal): Promise<BillingDto> {
    const [billing, databases, agents, events] = await Promise.all([
      this.rpc.request(CatalogSubjects.billingGet, principal, {}),
      this.rpc.request(DatabaseSubjects.overview, principal, {}),
      this.rpc.request(AgentSubjects.overview, principal, {}),
      this.rpc.request(EventsSubjects.overview, principal, {}),
    ]);
    return {
      ...billing,
      usage: {
        ...billing.usage,
        databases: databases.databases,
        agents: agents.agents,
        subscriptions: events.subscriptions,
      },
    };
  }
}
