import { DomainException, PeriodicTask } from '#common';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Logger } from 'pino';

import { RUNNER_LOGGER } from '../runner.tokens.js';
import { type Acted, OperationActions } from './operation-actions.service.js';
import type { HeldOperation } from './operation.record.js';
import { OperationRepository, type TargetOutcome } from './operation.repository.js';

/** How a worker paces itself (the runner's `OPERATIONS_*` settings). */
export interface OperationPace {
  tickMs: number;
  /** Targets one operation acts on per tick. */
  batch: number;
  /** Operations (each of another organization) one worker serves per tick. */
  perTick: number;
  leaseMs: number;
  maxAttempts: number;
}

export const OPERATION_PACE = Symbol('OPERATION_PACE');

/** A previous holder's clock and Postgres' may differ a little; a rerun this much earlier still counts. */
const CLOCK_SLACK_MS = 5_000;

/** Codes that say "not now" rather than "not this run": the target is tried again on a later tick. */
const TRANSIENT = new Set(['service_unavailable', 'rate_limited']);

/**
 * Serves bulk operations, on every runner replica: each tick it takes the operations whose turn it
 * is (`OperationRepository.claim`: one per organization, least recently served first) and acts on a
 * batch of each one's targets, recording each before and after it acts, so an operation resumes on
 * any replica after a crash and acts on no run twice (docs/runs.md, "Finding and acting on many runs").
 */
@Injectable()
export class OperationWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly ticks: PeriodicTask;

  constructor(
    private readonly operations: OperationRepository,
    private readonly actions: OperationActions,
    @Inject(OPERATION_PACE) private readonly pace: OperationPace,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {
    this.ticks = new PeriodicTask(
      pace.tickMs,
      async () => void (await this.tick()),
      (error: unknown) => this.logger.warn({ err: error }, 'serving operations failed; trying again'),
    );
  }

  onApplicationBootstrap(): void {
    this.ticks.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.ticks.stop();
  }

  /** One tick: a batch of each operation whose turn it is. Answers the operations served. */
  async tick(): Promise<number> {
    const held = await this.operations.claim(this.pace.perTick, this.pace.leaseMs);
    await Promise.all(
      held.map((operation) =>
        this.serve(operation).catch((error: unknown) =>
          this.logger.warn(
            { err: error, operationId: operation.id },
            'serving an operation failed; its lease will run out',
          ),
        ),
      ),
    );
    return held.length;
  }

  private async serve(operation: HeldOperation): Promise<void> {
    const interrupted = await this.operations.interrupted(operation);
    const again: string[] = [];
    for (const { targetId, actedAt } of interrupted) {
      const acted = await this.actions.tookEffect(
        operation,
        targetId,
        new Date(actedAt.getTime() - CLOCK_SLACK_MS),
      );
      if (!acted) again.push(targetId);
      else if (!(await this.settle(operation, targetId, { state: 'done', resultId: acted.resultId }))) return;
    }
    const begun = await this.operations.begin(operation, this.pace.batch - again.length);
    for (const targetId of [...again, ...begun]) {
      const outcome = await this.act(operation, targetId);
      if (!(await this.settle(operation, targetId, outcome))) return;
      if (outcome.state === 'pending') break; // the action's service is not answering: try later
    }
    const status = await this.operations.release(operation);
    if (status === 'complete') this.logger.info({ operationId: operation.id }, 'operation complete');
  }

  private async act(operation: HeldOperation, targetId: string): Promise<TargetOutcome> {
    let acted: Acted;
    try {
      acted = await this.actions.act(operation, targetId);
    } catch (error) {
      if (error instanceof DomainException && !TRANSIENT.has(error.code)) {
        return { state: 'failed', code: error.code, message: error.message };
      }
      const attempts = await this.operations.attempts(operation, targetId);
      this.logger.warn(
        { err: error, operationId: operation.id, targetId, attempts },
        'acting on a target failed',
      );
      if (attempts < this.pace.maxAttempts) return { state: 'pending' };
      return {
        state: 'failed',
        code: error instanceof DomainException ? error.code : 'internal',
        message: `Gave up after ${attempts} tries: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    return { state: 'done', resultId: acted.resultId };
  }

  /** False when this worker no longer holds the operation: it stops and writes nothing more. */
  private async settle(operation: HeldOperation, targetId: string, outcome: TargetOutcome): Promise<boolean> {
    const held = await this.operations.settle(operation, targetId, outcome, this.pace.leaseMs);
    if (!held)
      this.logger.warn(
        { operationId: operation.id },
        'an operation was taken over; this runner stops serving it',
      );
    return held;
  }
}
