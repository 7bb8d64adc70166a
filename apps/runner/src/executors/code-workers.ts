import { CodeWorkerPool } from '#sandbox';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';

/**
 * How long past its time cap a code worker may take before it is terminated: the cap is enforced
 * inside the sandbox, so this only has to cover stripping the types of a large body on a busy machine.
 */
const WORKER_GRACE_MS = 5_000;

/** The runner's `CODE_WORKERS` threads that run code steps; they stop with the runner. */
@Injectable()
export class CodeWorkers extends CodeWorkerPool implements OnApplicationShutdown {
  constructor(config: RunnerConfig, @Inject(RUNNER_LOGGER) logger: Logger) {
    super({
      size: config.CODE_WORKERS,
      graceMs: WORKER_GRACE_MS,
      onWorkerLost: (reason) => logger.warn(reason),
    });
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
