import type { ConnectionHealth, IntegrationId } from '#contracts';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'connections' })
export class ConnectionEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ name: 'integration_id', type: 'text' })
  integrationId!: IntegrationId;

  @Column({ type: 'text' })
  name!: string;

  /** A CredentialCipher box: only this service can open it. */
  @Column({ type: 'bytea', select: false })
  credentials!: Buffer;

  @Column({ type: 'text' })
  health!: ConnectionHealth;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
