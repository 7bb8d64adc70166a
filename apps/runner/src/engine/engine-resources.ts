import type { RunStatus } from '#contracts';
import type { Logger } from 'pino';

import type { NodeExecutorRegistry } from '../executors/node-executor.registry.js';
import type { InheritedScope } from '../loops/inherited-scopes.service.js';
import type { RunRepository } from '../runs/run.repository.js';
import type { RunLimits } from './run-limits.util.js';
import type { RunRecord } from './run-state.js';

export const ENGINE_RESOURCES = Symbol('ENGINE_RESOURCES');

/** A run that reached a final status, as the hook that wakes its parent needs it. */
export type EndedRun = Pick<RunRecord, 'id' | 'organizationId' | 'parentRunId' | 'parentNodeId'>;

/** The engine's settings, read once from the runner's configuration. */
export interface EngineSettings {
  leaseMs: number;
  maxClaims: number;
  limits: RunLimits;
}

/**
 * What the parts of the engine share: the claim, the walk of one run, its checkpoints and the
 * sweeper each take this one object rather than one class holding everything.
 */
export interface EngineResources {
  readonly runs: RunRepository;
  readonly executors: NodeExecutorRegistry;
  readonly settings: EngineSettings;
  readonly logger: Logger;
  /** Tells listeners that a committed write changed the run or its steps; never fails the run. */
  readonly changed: (runId: string, status: RunStatus) => void;
  /**
   * The run's final status is committed: a child run's parent step is woken (`ChildWakes`), and the
   * iterations of its loops still going are stopped (`LoopEnds`).
   */
  readonly ended: (run: RunRecord) => void;
  /** What a loop iteration's templates read beyond its own steps; null for any other run. */
  readonly inheritedScope: (run: RunRecord) => Promise<InheritedScope | null>;
  readonly now: () => Date;
}
