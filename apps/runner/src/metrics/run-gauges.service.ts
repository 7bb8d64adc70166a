import { PeriodicTask } from '#common';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { HELD_WORKFLOWS_LABELLED, heldRuns, oldestQueuedRunAge, unfinishedRuns } from './run.metrics.js';
import { type HeldCount, RunGaugeRepository } from './run-gauge.repository.js';

/**
 * Reads the unfinished runs from the database every `METRICS_POLL_MS` into the run gauges: a scrape
 * reads the last values and never queries. Every runner replica reports the same counts (they read
 * one database): aggregate with `max`, not `sum`.
 */
@Injectable()
export class RunGauges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(
    private readonly runs: RunGaugeRepository,
    config: RunnerConfig,
    @Inject(RUNNER_LOGGER) logger: Logger,
  ) {
    this.task = new PeriodicTask(
      config.METRICS_POLL_MS,
      () => this.poll(),
      (error) => logger.warn({ err: error }, 'could not count the unfinished runs for the metrics'),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  async poll(): Promise<void> {
    const [{ counts, oldestQueuedAt }, held] = await Promise.all([this.runs.unfinished(), this.runs.held()]);
    for (const [status, count] of Object.entries(counts)) unfinishedRuns.labels(status).set(count);
    oldestQueuedRunAge.set(oldestQueuedAt ? Math.max(0, Date.now() - oldestQueuedAt.getTime()) / 1000 : 0);
    setHeld(held);
  }
}

/** The held runs' gauge, the workflows holding most by name and the rest as `other`. */
export function setHeld(held: readonly HeldCount[]): void {
  const byWorkflow = new Map<string, number>();
  for (const { workflowId, count } of held)
    byWorkflow.set(workflowId, (byWorkflow.get(workflowId) ?? 0) + count);
  const named = new Set(
    [...byWorkflow]
      .sort((a, b) => b[1] - a[1])
      .slice(0, HELD_WORKFLOWS_LABELLED)
      .map(([workflowId]) => workflowId),
  );
  const values = new Map<string, { gate: string; workflowId: string; count: number }>();
  for (const { workflowId, gate, count } of held) {
    const label = named.has(workflowId) ? workflowId : 'other';
    const key = `${gate}\u0000${label}`;
    const value = values.get(key) ?? { gate, workflowId: label, count: 0 };
    value.count += count;
    values.set(key, value);
  }
  // Gates and workflows that hold nothing any more leave the exposition.
  heldRuns.reset();
  for (const { gate, workflowId, count } of values.values()) heldRuns.labels(gate, workflowId).set(count);
}
