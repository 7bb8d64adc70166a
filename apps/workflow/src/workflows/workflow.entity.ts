import type { Diagram } from '#contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'workflows' })
@Index('workflows_project_idx', ['organizationId', 'projectId', 'id'])
export class WorkflowEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** The draft. */
  @Column({ type: 'json' })
  diagram!: Diagram;

  /** The live version's number: always the newest version, null until the first publish. */
  @Column({ name: 'published_version', type: 'integer', nullable: true })
  publishedVersion!: number | null;

  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt!: Date | null;

  @Column({ name: 'created_by', type: 'text', nullable: true })
  createdBy!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /** Set by a delete: the workflow is gone for everyone, and waits for its runs to be terminated. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;

  /** When a purge sweep may take the deleted workflow: the lease of the purge under way. */
  @Column({ name: 'purge_after', type: 'timestamptz', nullable: true })
  purgeAfter!: Date | null;
}
