import { BillingDto, type Principal } from '#contracts';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { BillingService } from './billing.service.js';

@ApiTags('billing')
@Controller('api/v1/billing')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Get()
  @ApiOperation({ summary: "Get the organization's plan, every limit and the current usage" })
  @ApiOkResponse({ type: BillingDto })
  @ApiErrors()
  get(@CurrentPrincipal() principal: Principal): Promise<BillingDto> {
    return this.billing.get(principal);
  }
}
