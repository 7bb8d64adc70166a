import type { AgentProvider, AppGrantDto, ThinkingLevel } from '#contracts';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'agents' })
export class AgentEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'text' })
  instructions!: string;

  @Column({ type: 'text' })
  provider!: AgentProvider;

  @Column({ type: 'text' })
  model!: string;

  @Column({ name: 'thinking_level', type: 'text' })
  thinkingLevel!: ThinkingLevel;

  @Column({ type: 'jsonb' })
  apps!: AppGrantDto[];

  @Column({ type: 'text', array: true })
  skills!: string[];

  @Column({ type: 'text', array: true })
  databases!: string[];

  @Column({ name: 'database_writes', type: 'text', array: true })
  databaseWrites!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
