import { availableParallelism } from 'node:os';

import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { ServiceConfig } from '#common';
import { CODE_MEMORY_MAX_MB, CODE_MEMORY_MIN_MB, CODE_TIMEOUT_MAX_MS } from '#contracts';
import { IsIn, IsInt, IsOptional, Matches, Max, Min, ValidateBy } from 'class-validator';

import type { RunLimits } from './engine/run-limits.util.js';

export const START_MODES = ['inline', 'queue'] as const;
export type StartMode = (typeof START_MODES)[number];

const KIB = 1024;
const MIB = 1024 * KIB;

/** A limit that may not exceed another of the same configuration. */
function IsAtMost(other: keyof RunnerConfig): PropertyDecorator {
  return ValidateBy({
    name: 'isAtMost',
    validator: {
      validate: (value: unknown, args) =>
        typeof value === 'number' && value <= Number((args?.object as RunnerConfig)[other]),
      defaultMessage: (args) => `${args?.property} must not be more than ${other}`,
    },
  });
}

export class RunnerConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3103;

  /** Postgres connections of this process: starts, checkpoints and reads share them. */
  override DATABASE_POOL_SIZE: number = 16;

  /** Runs this process executes at once. Most of a run is waiting on I/O, so this can exceed the cores. */
  @IsInt()
  @Min(1)
  RUNNER_CONCURRENCY: number = 32;

  /**
   * `inline`: a run accepted while this runner has a free slot is claimed in the statement that
   * records it and executed here at once, without a trip through the queue (its job is published
   * only if it has to be handed on). `queue`: every run goes through the RUNS stream.
   */
  @IsIn(START_MODES)
  RUNNER_START_MODE: StartMode = 'inline';

  /**
   * How long a runner may hold a run without a sign of life: the JetStream ack wait of a run job and
   * the lease on the run row. A live runner renews both every third of it; a dead one's runs are
   * taken over once it has passed.
   */
  @IsInt()
  @Min(1000)
  RUNNER_LEASE_MS: number = 30_000;

  /** Deliveries of one run job before JetStream gives up on it (the sweeper still recovers the run). */
  @IsInt()
  @Min(2)
  RUNNER_MAX_DELIVER: number = 20;

  /** A run picked up this many times without finishing is errored rather than tried again. */
  @IsInt()
  @Min(1)
  RUNNER_MAX_CLAIMS: number = 10;

  /**
   * How many of one organization's runs may wait in the RUNS stream at once (docs/flow-control.md):
   * its next are held in Postgres and let through one by one as those leave the queue, so another
   * organization's run waits behind at most this many of its runs, never behind its whole backlog.
   * Big enough to keep every runner's slots busy with one organization's work.
   */
  @IsInt()
  @Min(1)
  RUNNER_ORGANIZATION_SHARE: number = 32;

  /**
   * Slots the queue's jobs never take, kept for runs started while this runner is busy (executed at
   * once when their organization has no backlog: docs/flow-control.md), so that one organization's
   * backlog filling every slot does not make another's new run wait for one. 0 turns it off; at most
   * `RUNNER_CONCURRENCY - 1` is used.
   */
  @IsInt()
  @Min(0)
  RUNNER_INLINE_RESERVE: number = 4;

  /** How often ended runs are looked for whose end something must follow (docs/runs.md, "Reacting to a run's end"). */
  @IsInt()
  @Min(50)
  RUNNER_ENDINGS_INTERVAL_MS: number = 500;

  /** How many times what follows a run's end is tried before it is given up (doubling waits from 2 s). */
  @IsInt()
  @Min(1)
  RUNNER_ENDINGS_MAX_ATTEMPTS: number = 10;

  /** How often due delays and retries are woken and lost jobs republished. */
  @IsInt()
  @Min(50)
  RUNNER_SWEEP_INTERVAL_MS: number = 1_000;

  /** A run still `queued` this long after its job was published gets its job published again. */
  @IsInt()
  @Min(1000)
  RUNNER_REQUEUE_AFTER_MS: number = 30_000;

  /** On shutdown, running steps get this long to finish before their runs are handed back. */
  @IsInt()
  @Min(0)
  RUNNER_SHUTDOWN_GRACE_MS: number = 10_000;

  /** How often each runner serves bulk operations (docs/runs.md, "Finding and acting on many runs"). */
  @IsInt()
  @Min(50)
  OPERATIONS_TICK_MS: number = 1_000;

  /** Runs (or events) one operation acts on per tick: its pace, whatever its size. */
  @IsInt()
  @Min(1)
  @Max(1000)
  OPERATIONS_BATCH: number = 20;

  /** Operations one runner serves per tick, each of a different organization, least recently served first. */
  @IsInt()
  @Min(1)
  OPERATIONS_PER_TICK: number = 8;

  /** A runner serving an operation holds it this long (renewed with every run it settles). */
  @IsInt()
  @Min(500)
  OPERATIONS_LEASE_MS: number = 30_000;

  /** The most runs (or events) one operation may match; a filter matching more is refused. */
  @IsInt()
  @Min(1)
  OPERATIONS_MAX_TARGETS: number = 200_000;

  /** Tries of one run when the action fails for a reason that may pass (a service not answering). */
  @IsInt()
  @Min(1)
  OPERATIONS_MAX_ATTEMPTS: number = 5;

  /**
   * How often each runner trims the step payloads and diagrams that the operator's retention settings
   * no longer keep in full (docs/retention.md). Nothing is trimmed until an operator sets a retention.
   */
  @IsInt()
  @Min(1000)
  RETENTION_INTERVAL_MS: number = 600_000;

  /**
   * Runs one retention statement looks at: each batch is one short statement of its own, so no lock
   * is held for long and writers never wait on the purge.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  RETENTION_BATCH: number = 500;

  /** Requests to workflow and catalog while starting a run. */
  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /**
   * How long a step that calls another service (action, agent, database) waits for one to serve it
   * when none does, as while that service restarts, before the step fails. A request nobody received
   * is safe to send again; the run keeps its lease meanwhile.
   */
  @IsInt()
  @Min(0)
  STEP_UNAVAILABLE_WAIT_MS: number = 60_000;

  /** Longer than the database service's whole-batch limit (120 s, writer wait included): a step never gives up on a batch that may still commit. */
  @IsInt()
  @Min(1000)
  DATABASE_STEP_TIMEOUT_MS: number = 130_000;

  /**
   * The most one property of a step may be once its templates are filled in, in UTF-8 bytes: filling
   * in stops as soon as it is passed, and the step fails naming the node and the property.
   */
  @IsInt()
  @Min(KIB)
  @IsAtMost('STEP_INPUT_MAX_BYTES')
  TEMPLATE_PROPERTY_MAX_BYTES: number = 256 * KIB;

  /** The most a step's input may be (all its properties together, as recorded), in UTF-8 bytes. */
  @IsInt()
  @Min(KIB)
  @IsAtMost('RUN_DATA_MAX_BYTES')
  STEP_INPUT_MAX_BYTES: number = MIB;

  /**
   * The most a step may keep of its output (an action's result, a query's rows), in UTF-8 bytes: above
   * the events service's 1 MiB limit on an app's answer, which its result wraps.
   */
  @IsInt()
  @Min(KIB)
  @IsAtMost('RUN_DATA_MAX_BYTES')
  STEP_OUTPUT_MAX_BYTES: number = 2 * MIB;

  /**
   * The most a run may keep of its steps' inputs, outputs and errors and of its reply, as its answer
   * carries them (JSON bytes). With the diagram and input limits, it keeps every run's answer within
   * one 8 MiB NATS message (docs/runs.md, "Limits"). At least 1 MiB: the trigger's copy of the
   * largest input must fit.
   */
  @IsInt()
  @Min(MIB)
  @Max(64 * MIB)
  RUN_DATA_MAX_BYTES: number = 5 * MIB;

  /**
   * Worker threads that run code steps, each one step at a time (docs/workflows.md, "Code"). Half the
   * cores by default: code that spins until its time cap then holds at most half the machine.
   */
  @IsInt()
  @Min(1)
  @Max(64)
  CODE_WORKERS: number = Math.max(1, Math.floor(availableParallelism() / 2));

  /** A code step's time cap when its node sets no `timeoutMs`. */
  @IsInt()
  @Min(1)
  @Max(CODE_TIMEOUT_MAX_MS)
  CODE_TIMEOUT_MS: number = 1_000;

  /** A code step's memory cap, in MiB, when its node sets no `memoryMb`. */
  @IsInt()
  @Min(CODE_MEMORY_MIN_MB)
  @Max(CODE_MEMORY_MAX_MB)
  CODE_MEMORY_MB: number = 32;

  /**
   * What one runner keeps of the steps loop iterations inherit (the steps before each loop, read once
   * per loop rather than once per iteration), in characters of their output fields; the least
   * recently used go first. An iteration whose loop's steps are not kept reads them again.
   */
  @IsInt()
  @Min(0)
  LOOP_SCOPE_CACHE_BYTES: number = 64 * MIB;

  get runLimits(): RunLimits {
    return {
      propertyMaxBytes: this.TEMPLATE_PROPERTY_MAX_BYTES,
      stepInputMaxBytes: this.STEP_INPUT_MAX_BYTES,
      stepOutputMaxBytes: this.STEP_OUTPUT_MAX_BYTES,
      runDataMaxBytes: this.RUN_DATA_MAX_BYTES,
    };
  }

  /** The NATS password of user `runner`. Unset, runner connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_RUNNER_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_RUNNER_PASSWORD?: string;

  override productionProblems(): string[] {
    return natsProductionProblems(this.natsEndpoint);
  }

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'runner', password: this.NATS_RUNNER_PASSWORD };
  }
}
