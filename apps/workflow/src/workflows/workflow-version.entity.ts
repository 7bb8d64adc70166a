import type { Diagram } from '#contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'versions' })
export class WorkflowVersionEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'workflow_id', type: 'uuid' })
  workflowId!: string;

  @Column({ type: 'integer' })
  number!: number;

  @Column({ name: 'time_zone', type: 'text' })
  timeZone!: string;

  /** The draft as it was published; never changes. */
  @Column({ type: 'json' })
  diagram!: Diagram;

  @Column({ name: 'published_by', type: 'text', nullable: true })
  publishedBy!: string | null;

  @Column({ name: 'published_at', type: 'timestamptz' })
  publishedAt!: Date;
}
