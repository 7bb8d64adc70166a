import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'databases' })
@Index('databases_organization_name_key', ['organizationId', 'name'], { unique: true })
@Index('databases_organization_id_idx', ['organizationId', 'id'])
export class DatabaseEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  /** The replica whose volume holds the file (docs/databases.md, "Scaling out"). */
  @Column({ type: 'integer' })
  shard!: number;

  /** Set while the file is being copied to another shard. */
  @Column({ name: 'move_id', type: 'uuid', nullable: true })
  moveId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
