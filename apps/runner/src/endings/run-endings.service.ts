import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Logger } from 'pino';

import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { RunRepository } from '../runs/run.repository.js';
import { type RunEndingHandler, RunEndingHandlerProvider } from './run-ending.js';
import { type ClaimedEnding, RunEndingRepository } from './run-ending.repository.js';

const BATCH = 50;
/** An ending claimed by a runner that died is claimed again after this. */
const CLAIM_MS = 60_000;
/** The wait before a failed ending is tried again: doubling from 2 s, at most 10 minutes. */
const retryDelayMs = (attempts: number) => Math.min(2 ** attempts * 1000, 600_000);

/**
 * Calls the run-ending handlers (an error workflow's start, notifications) for each ended run in the
 * outbox, every `RUNNER_ENDINGS_INTERVAL_MS`: at least once each, until each succeeded or the run's
 * `RUNNER_ENDINGS_MAX_ATTEMPTS` are spent. The outbox row is written with the run's end, so no ended
 * run is missed whichever process dies; nothing is held open while a handler works.
 */
@Injectable()
export class RunEndings implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly handlers: RunEndingHandler[] = [];
  private timer?: NodeJS.Timeout;
  private draining?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly endings: RunEndingRepository,
    private readonly runs: RunRepository,
    private readonly config: RunnerConfig,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: RunEndingHandlerProvider.KEY })) {
      this.handlers.push(wrapper.instance as RunEndingHandler);
    }
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.draining;
  }

  /** Handles what is due now, batch after batch; answers how many endings were looked at. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.endings.claim(BATCH, CLAIM_MS);
      await Promise.all(claimed.map((ending) => this.handle(ending)));
      total += claimed.length;
      if (claimed.length < BATCH || this.stopped) return total;
    }
  }

  private async handle(ending: ClaimedEnding): Promise<void> {
    const run = await this.runs.find(ending.organizationId, ending.runId);
    if (!run) {
      await this.endings.done(ending.runId);
      return;
    }
    const handled = [...ending.handled];
    const failures: string[] = [];
    for (const handler of this.handlers) {
      if (handled.includes(handler.name)) continue;
      try {
        await handler.handle({ status: ending.status, run, attempt: ending.attempts });
        handled.push(handler.name);
      } catch (error) {
        failures.push(`${handler.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failures.length === 0) {
      await this.endings.done(ending.runId);
      return;
    }
    const error = failures.join('; ');
    if (ending.attempts >= this.config.RUNNER_ENDINGS_MAX_ATTEMPTS) {
      this.logger.error(
        { runId: ending.runId, attempts: ending.attempts, error },
        'what must follow the end of a run failed every attempt; it is given up',
      );
      await this.endings.done(ending.runId);
      return;
    }
    this.logger.warn({ runId: ending.runId, attempts: ending.attempts, error }, 'run ending handler failed');
    await this.endings.retryLater(ending.runId, handled, error, retryDelayMs(ending.attempts));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.draining = this.drain()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'handling ended runs failed; trying again'),
        )
        .finally(() => {
          this.draining = undefined;
          this.schedule();
        });
    }, this.config.RUNNER_ENDINGS_INTERVAL_MS);
  }
}
