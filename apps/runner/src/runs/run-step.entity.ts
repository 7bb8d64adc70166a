import type { StepStatus } from '#contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'run_steps' })
export class RunStepEntity {
  @PrimaryColumn({ name: 'run_id', type: 'uuid' })
  runId!: string;

  @PrimaryColumn({ name: 'node_id', type: 'text' })
  nodeId!: string;

  /** Start order within the run. */
  @Column({ type: 'integer' })
  position!: number;

  @Column({ type: 'text' })
  status!: StepStatus;

  @Column({ type: 'text', array: true })
  via!: string[];

  @Column({ type: 'text', nullable: true })
  input!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  output!: Record<string, string> | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'integer', nullable: true })
  ms!: number | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  /** 1 for the first try; a crash re-runs the same attempt, a retry starts the next. */
  @Column({ type: 'integer' })
  attempt!: number;

  /** The `sourceHandle` whose edges fired; null when all outgoing edges fire. */
  @Column({ type: 'text', nullable: true })
  route!: string | null;

  /** What the executor kept for when the step wakes (a delay's due time). */
  @Column({ type: 'jsonb', nullable: true })
  state!: unknown;

  /** When a waiting step is due: its delay's end or its next retry. */
  @Column({ name: 'wake_at', type: 'timestamptz', nullable: true })
  wakeAt!: Date | null;
}
