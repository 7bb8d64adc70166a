import { setTimeout as sleep } from 'node:timers/promises';

import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

import type { RunStatus } from '#contracts';

import type { EndedRun } from '../engine/engine-resources.js';
import { HELD_STATUSES } from '../engine/run-state.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { RunChanges } from '../runs/run-changes.service.js';
import { RunControlRepository } from '../runs/run-control.repository.js';

/** The first pause before a wake is asked again, doubled each time up to `WAKE_RETRY_MAX_MS`. */
const WAKE_RETRY_FIRST_MS = 100;
const WAKE_RETRY_MAX_MS = 2_000;
/**
 * How long a wake is asked again while the parent is held. A parent held longer (another branch runs
 * a long step) is woken by its step's fallback instead (`childWaitUntil`).
 */
export const WAKE_PERSIST_MS = 60_000;

/**
 * The "child ended → wake parent" hook: once a child run's final status is committed, the parent's
 * step that waits for it (`parent_node_id`) runs again now instead of at its fallback, the way an
 * approval's decision wakes an agent step (`RunControlRepository.wakeStep`: the step's `wake_at`
 * now, the run `waiting` → `queued`, its job published after the commit).
 *
 * While the parent is held by a runner (`running`: the step that started the child has not come
 * back as waiting yet, or another branch still runs), the wake answers `woken: false`, since the
 * holder's next write would set the run's wake time from what it knows. It is then asked again, after
 * 100 ms doubling to 2 s, for up to a minute. A wake lost to a crash, or given up on, costs time
 * only: the waiting step carries a fallback wake time at which it looks at its children anyway.
 */
@Injectable()
export class ChildWakes implements BeforeApplicationShutdown {
  private readonly stopping = new AbortController();
  private readonly pending = new Set<Promise<unknown>>();
  /** Wakes asked again as soon as this runner's write lets their parent go, by parent run. */
  private readonly letGo = new Map<string, Set<() => void>>();

  constructor(
    private readonly control: RunControlRepository,
    private readonly changes: RunChanges,
    private readonly jobs: RunJobs,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  /** A run ended: when it is a child, its parent's waiting step is woken, in the background. */
  ended(run: EndedRun): void {
    if (run.parentRunId === null || run.parentNodeId === null) return;
    const parent = { organizationId: run.organizationId, runId: run.parentRunId, nodeId: run.parentNodeId };
    const task = this.wake(parent)
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, runId: run.id, parentRunId: parent.runId },
          "waking a child run's parent failed; its step's fallback wakes it",
        ),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /**
   * A write of this runner left the run as `status`: once it no longer holds the run, the wakes
   * refused while it did ask again at once rather than after their pause. (A loop whose iterations
   * end faster than it looks would otherwise wait out a doubling pause at nearly every look.)
   */
  changed(runId: string, status: RunStatus): void {
    if ((HELD_STATUSES as readonly string[]).includes(status)) return;
    const waiting = this.letGo.get(runId);
    if (!waiting) return;
    this.letGo.delete(runId);
    for (const resume of waiting) resume();
  }

  /** Wakes no more on shutdown: the parents' fallbacks stand behind what is left. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.pending]);
  }

  /** Until the step is woken, has nothing left to wake, or `WAKE_PERSIST_MS` passed. */
  async wake(parent: { organizationId: string; runId: string; nodeId: string }): Promise<boolean> {
    const began = Date.now();
    for (let pause = WAKE_RETRY_FIRST_MS; ; pause = Math.min(pause * 2, WAKE_RETRY_MAX_MS)) {
      const { woken, job } = await this.control.wakeStep(parent.organizationId, parent.runId, parent.nodeId);
      if (job) {
        this.changes.changed(parent.runId, 'queued');
        await this.jobs.publishSoon(job);
      }
      if (woken) return true;
      if (Date.now() - began + pause > WAKE_PERSIST_MS || this.stopping.signal.aborted) return false;
      if (await this.pause(parent.runId, pause)) return false;
    }
  }

  /** Waits `ms`, or until this runner lets the parent go; true when the runner is stopping. */
  private async pause(parentRunId: string, ms: number): Promise<boolean> {
    let resume = () => undefined as void;
    const letGo = new Promise<boolean>((resolve) => (resume = () => resolve(false)));
    const waiting = this.letGo.get(parentRunId) ?? new Set();
    waiting.add(resume);
    this.letGo.set(parentRunId, waiting);
    const timer = new AbortController();
    try {
      return await Promise.race([
        letGo,
        sleep(ms, false, { signal: AbortSignal.any([this.stopping.signal, timer.signal]) }).catch(
          () => this.stopping.signal.aborted,
        ),
      ]);
    } finally {
      timer.abort();
      waiting.delete(resume);
      if (waiting.size === 0 && this.letGo.get(parentRunId) === waiting) this.letGo.delete(parentRunId);
    }
  }
}
