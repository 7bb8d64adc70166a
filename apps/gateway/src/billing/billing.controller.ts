import { BillingDto, CatalogSubjects, type Principal } from '#contracts';
import { RpcClient } from '#nats';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

@ApiTags('billing')
@Controller('api/v1/billing')
export class BillingController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: "Get the organization's plan, limits and usage" })
  @ApiOkResponse({ type: BillingDto })
  @ApiErrors()
  get(@CurrentPrincipal() principal: Principal) {
    return this.rpc.request(CatalogSubjects.billingGet, principal, {});
  }
}
