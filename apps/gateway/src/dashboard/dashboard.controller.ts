import { DashboardDto, type Principal } from '#contracts';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { DashboardService } from './dashboard.service.js';

@ApiTags('dashboard')
@Controller('api/v1/dashboard')
export class DashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get()
  @ApiOperation({
    summary: 'What needs attention, recent runs and counts',
    description:
      'Answers within about 2 seconds. A service that does not answer in time has its part shown as last read and listed in `stale` (an extension beyond the contract); a part never read answers 503 `service_unavailable` with `details.parts`.',
  })
  @ApiOkResponse({ type: DashboardDto })
  @ApiErrors('service_unavailable')
  get(@CurrentPrincipal() principal: Principal): Promise<DashboardDto> {
    return this.dashboard.get(principal);
  }
}
