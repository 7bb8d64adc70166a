import { ApiProperty } from '@nestjs/swagger';

import { BillingModelUsageDto } from '../usage/usage.dto.js';
import { PLAN_IDS, type PlanId } from './plan.js';

export class BillingUsageDto {
  @ApiProperty({ type: 'integer', description: 'Projects that exist now.' })
  projects!: number;

  @ApiProperty({ type: 'integer', description: 'Databases that exist now.' })
  databases!: number;

  @ApiProperty({ type: 'integer', description: 'Agents that exist now.' })
  agents!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Active app subscriptions: App event triggers of live, unpaused versions, counting once those with the same connection, trigger and filter.',
  })
  subscriptions!: number;

  @ApiProperty({ type: 'integer', description: 'Runs started this calendar month (UTC).' })
  runs!: number;

  @ApiProperty({
    type: 'integer',
    description:
      "Bytes the organization's databases hold together: the blocks their data uses and their write-ahead logs, as last measured.",
  })
  storage!: number;

  @ApiProperty({
    type: 'integer',
    description:
      "Bytes held by the largest of the organization's databases, which `limits.databaseStorage` bounds.",
  })
  databaseStorage!: number;
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
    description:
      'Each limit of the plan. `storage` (bytes of all databases together) and `databaseStorage` (bytes of each database) are beyond the contract.',
    example: {
      projects: 3,
      databases: 2,
      agents: 3,
      subscriptions: 5,
      runs: 1000,
      storage: 157286400,
      databaseStorage: 104857600,
    },
  })
  limits!: Record<string, number>;

  @ApiProperty({ type: BillingUsageDto, description: 'What counts against each limit now.' })
  usage!: BillingUsageDto;

  @ApiProperty({ format: 'date-time', description: 'Start of the month the run quota counts.' })
  periodStart!: string;

  @ApiProperty({
    type: BillingModelUsageDto,
    description:
      "Extension: this UTC month's model calls and tokens of the organization's agents, the estimated cost and the organization's token budget (docs/usage.md).",
  })
  modelUsage!: BillingModelUsageDto;
}

/** Billing as catalog knows it: the plan, and the usage it counts itself (projects, runs). */
export type CatalogBilling = Omit<BillingDto, 'usage' | 'modelUsage'> & {
  usage: Pick<BillingUsageDto, 'projects' | 'runs'>;
};
