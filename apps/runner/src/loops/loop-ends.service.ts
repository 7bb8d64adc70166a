import { isLoopNode } from '#contracts';
import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import type { RunRecord } from '../engine/run-state.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { RunChanges } from '../runs/run-changes.service.js';
import { LoopIterations } from './loop-iterations.repository.js';

/**
 * A run that ends while one of its loops still has iterations going (another branch failed it; a
 * loop's own failure stops its iterations itself) stops them: nothing can read what they would come
 * to. Done in the background once the run's end is committed; a runner that dies before leaves them
 * to run to their end, which costs work but changes nothing the run shows. A called workflow's run
 * is not an iteration and goes on (a `workflow` step that does not wait lets it).
 */
@Injectable()
export class LoopEnds implements BeforeApplicationShutdown {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly iterations: LoopIterations,
    private readonly changes: RunChanges,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  ended(run: Pick<RunRecord, 'id' | 'organizationId' | 'diagram'>): void {
    if (!run.diagram.nodes.some(isLoopNode)) return;
    const message = `Cancelled: run ${run.id}, which this iteration belongs to, ended first.`;
    const { organizationId } = run;
    const task = this.iterations
      .terminateUnfinished(organizationId, run.id, null, message)
      .then((stopped) => {
        for (const runId of stopped) {
          this.changes.cancelled({ runId, organizationId, message });
          this.changes.changed(runId, 'terminated');
        }
      })
      .catch((error: unknown) =>
        this.logger.warn({ err: error, runId: run.id }, "stopping an ended run's iterations failed"),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
