import { ApiProperty } from '@nestjs/swagger';

import { PLAN_IDS, type PlanId } from './plan.js';

export class BillingUsageDto {
  @ApiProperty({ type: 'integer', description: 'Projects that exist now.' })
  projects!: number;

  @ApiProperty({ type: 'integer', description: 'Runs started this calendar month (UTC).' })
  runs!: number;
}

export class BillingDto {
  @ApiProperty({ enum: PLAN_IDS })
  plan!: PlanId;

  @ApiProperty({ example: 'Free' })
  label!: string;

  @ApiProperty({ description: 'The plan was granted for free rather than subscribed to.' })
  complimentary!: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { projects: 3, databases: 2, agents: 3, subscriptions: 5, runs: 1000 },
  })
  limits!: Record<string, number>;

  @ApiProperty({ type: BillingUsageDto, description: 'What counts against the limits now.' })
  usage!: BillingUsageDto;

  @ApiProperty({ format: 'date-time', description: 'Start of the month the run quota counts.' })
  periodStart!: string;
}
