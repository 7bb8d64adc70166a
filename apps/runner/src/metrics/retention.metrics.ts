import type { RetentionKind } from '#contracts';
import { Counter } from 'prom-client';

/**
 * What the retention purge trimmed on this runner (docs/retention.md): runs, by kind, and step rows.
 * Its rate while a backlog is being trimmed is the purge's pace.
 */
const trimmedRuns = new Counter({
  name: 'flowmesh_retention_trimmed_runs_total',
  help: 'Runs whose step payloads (kind step_payload) or diagram (kind diagram) retention trimmed on this runner.',
  labelNames: ['kind'] as const,
});
const trimmedSteps = new Counter({
  name: 'flowmesh_retention_trimmed_steps_total',
  help: 'Step rows whose input, output and state retention trimmed on this runner.',
});

export function retentionTrimmed(kind: RetentionKind, runs: number, steps: number): void {
  if (runs > 0) trimmedRuns.labels(kind).inc(runs);
  if (steps > 0) trimmedSteps.inc(steps);
}
