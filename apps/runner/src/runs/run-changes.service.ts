import { type RunCancelledEvent, RunnerSubjects, type RunStatus } from '#contracts';
import { publishEvent } from '#nats';
import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { NATS_CONNECTION, RUNNER_LOGGER } from '../runner.tokens.js';

/**
 * Tells listeners (the gateway's waits and streams) that a run or its steps changed, once the write
 * is committed. Every write of a run repository that changes what `runs.get` answers is followed by
 * one notice: a run's first write, claims, checkpoints, wakes, sweeps that wake a run, terminations.
 * Inserting a queued run sends none: nobody knows its id before the start answers, and whoever
 * watches it afterwards reads it first.
 */
@Injectable()
export class RunChanges {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  /** The run was cancelled: its holder and the services working on its steps stop (see the event). */
  cancelled(event: RunCancelledEvent): void {
    this.publish(() => publishEvent(this.nats, RunnerSubjects.runCancelled, event, event.runId), event.runId);
  }

  /** The run is `waitingForPause`: its holder starts no new step. */
  pauseRequested(runId: string): void {
    this.publish(() => publishEvent(this.nats, RunnerSubjects.runPauseRequested, { runId }, runId), runId);
  }

  private publish(send: () => void, runId: string): void {
    try {
      send();
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'could not publish a run control notice');
    }
  }

  /** Never fails the caller: the write stands, and a listener that misses a notice times out. */
  changed(runId: string, status: RunStatus): void {
    try {
      publishEvent(this.nats, RunnerSubjects.runChanged, { runId, status }, runId);
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'could not publish a run change notice');
    }
  }
}
