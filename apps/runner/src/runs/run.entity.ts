import type { Diagram, Principal, RunTrigger } from '#contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The stored status: a subset of the contract's, since `unknown` is computed when read. */
export type StoredRunStatus = 'queued' | 'running' | 'waiting' | 'complete' | 'errored' | 'terminated';

@Entity({ name: 'runs' })
export class RunEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ name: 'workflow_id', type: 'text' })
  workflowId!: string;

  @Column({ name: 'workflow_name', type: 'text' })
  workflowName!: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId!: string;

  @Column({ type: 'integer', nullable: true })
  version!: number | null;

  @Column({ type: 'text' })
  trigger!: RunTrigger;

  @Column({ name: 'trigger_node_id', type: 'text', nullable: true })
  triggerNodeId!: string | null;

  @Column({ type: 'text' })
  status!: StoredRunStatus;

  @Column({ name: 'created_by', type: 'text', nullable: true })
  createdBy!: string | null;

  /** Who started the run: steps that call other services act for them. */
  @Column({ type: 'jsonb' })
  principal!: Principal;

  @Column({ type: 'text' })
  input!: string;

  @Column({ type: 'text', nullable: true })
  reply!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'json' })
  diagram!: Diagram;

  @Column({ name: 'time_zone', type: 'text' })
  timeZone!: string;

  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey!: string | null;

  /** What the key's request asked for (`requestFingerprint`); null for runs without a key. */
  @Column({ name: 'idempotency_fingerprint', type: 'text', nullable: true })
  idempotencyFingerprint!: string | null;

  @Column({ type: 'integer' })
  dispatch!: number;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt!: Date | null;

  @Column({ name: 'lease_token', type: 'integer' })
  leaseToken!: number;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  @Column({ type: 'integer' })
  claims!: number;

  @Column({ name: 'wake_at', type: 'timestamptz', nullable: true })
  wakeAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
