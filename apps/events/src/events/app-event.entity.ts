import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A stored app event. Fan-out bookkeeping lives in columns no route reads. */
@Entity({ name: 'app_events' })
export class AppEventEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ name: 'connection_id', type: 'uuid' })
  connectionId!: string;

  @Column({ type: 'text' })
  trigger!: string;

  @Column({ type: 'text' })
  payload!: string;

  @Column({ name: 'fired_at', type: 'timestamptz' })
  firedAt!: Date;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt!: Date;
}
