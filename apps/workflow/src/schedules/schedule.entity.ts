import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A schedule trigger of a live, unpaused version and the next time it is due. */
@Entity({ name: 'schedules' })
export class ScheduleEntity {
  @PrimaryColumn({ name: 'workflow_id', type: 'uuid' })
  workflowId!: string;

  @PrimaryColumn({ name: 'trigger_node_id', type: 'text' })
  triggerNodeId!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  cron!: string;

  @Column({ name: 'time_zone', type: 'text' })
  timeZone!: string;

  @Column({ name: 'next_run_at', type: 'timestamptz' })
  nextRunAt!: Date;

  /** A scheduler is sending the run due at `nextRunAt` until then (or died doing it). */
  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil!: Date | null;
}
