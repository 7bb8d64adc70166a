import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'organization_plans' })
export class OrganizationPlanEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'text' })
  plan!: string;

  @Column({ type: 'boolean' })
  complimentary!: boolean;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
