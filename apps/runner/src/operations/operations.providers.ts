import type { Provider } from '@nestjs/common';

import type { RunnerConfig } from '../runner.config.js';
import { OperationActions } from './operation-actions.service.js';
import { OPERATION_PACE, type OperationPace, OperationWorker } from './operation-worker.service.js';
import { OperationRepository } from './operation.repository.js';
import { OperationsHandler } from './operations.handler.js';
import { OPERATIONS_MAX_TARGETS, OperationsService } from './operations.service.js';
import { RunControlService } from '../control/run-control.service.js';
import { RUN_ACTIONS } from './run-actions.js';

/**
 * Bulk operations (docs/runs.md, "Finding and acting on many runs"), as the runner's module lists
 * them: they act through the runner's own run control, so they live in its module, not one apart.
 */
export const OPERATION_HANDLERS = [OperationsHandler];

export function operationProviders(config: RunnerConfig): Provider[] {
  const pace: OperationPace = {
    tickMs: config.OPERATIONS_TICK_MS,
    batch: config.OPERATIONS_BATCH,
    perTick: config.OPERATIONS_PER_TICK,
    leaseMs: config.OPERATIONS_LEASE_MS,
    maxAttempts: config.OPERATIONS_MAX_ATTEMPTS,
  };
  return [
    { provide: OPERATION_PACE, useValue: pace },
    { provide: OPERATIONS_MAX_TARGETS, useValue: config.OPERATIONS_MAX_TARGETS },
    { provide: RUN_ACTIONS, useExisting: RunControlService },
    OperationRepository,
    OperationActions,
    OperationsService,
    OperationWorker,
  ];
}
