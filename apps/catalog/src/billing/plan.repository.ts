import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import { OrganizationPlanEntity } from './organization-plan.entity.js';

@Injectable()
export class PlanRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(organizationId: string): Promise<OrganizationPlanEntity | null> {
    return this.dataSource.getRepository(OrganizationPlanEntity).findOneBy({ organizationId });
  }

  async upsert(organizationId: string, plan: string, complimentary: boolean): Promise<void> {
    await this.dataSource
      .getRepository(OrganizationPlanEntity)
      .upsert({ organizationId, plan, complimentary }, ['organizationId']);
  }
}
