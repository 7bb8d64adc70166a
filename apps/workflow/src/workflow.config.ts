import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { ServiceConfig } from '#common';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export class WorkflowConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3102;

  /** How long a request to another service (catalog, runner) may take before it fails. */
  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /** How often each replica looks for schedules that are due; cron has minute precision. */
  @IsInt()
  @Min(50)
  SCHEDULER_INTERVAL_MS: number = 1_000;

  /**
   * How long before its due time a schedule's run is written, held until that time (`heldBy:
   * schedule`), so that the thousands of schedules due at the same minute all go on at that minute
   * rather than as fast as they can be written after it. 0 writes each run at its time.
   */
  @IsInt()
  @Min(0)
  @Max(30_000)
  SCHEDULE_LEAD_MS: number = 10_000;

  /**
   * A due time older than this when the scheduler reaches it (the service was down, or the runner
   * kept failing) is skipped rather than run late.
   */
  @IsInt()
  @Min(1_000)
  SCHEDULE_MISFIRE_GRACE_MS: number = 15 * 60_000;

  /**
   * How long a delete waits for the runner to terminate the workflow's runs before it answers; past
   * it the delete still answers (the workflow is already gone for everyone) and the purge sweep
   * finishes. Well under the gateway's own timeout of its request.
   */
  @IsInt()
  @Min(100)
  DELETE_WAIT_MS: number = 3_000;

  /** How often each replica looks for deleted workflows whose purge is due. */
  @IsInt()
  @Min(50)
  PURGE_INTERVAL_MS: number = 1_000;

  /**
   * The lease of one purge attempt, and so how long after a failed one (the runner unreachable) the
   * next is made. Longer than an attempt can take, or two replicas may purge the same workflow at
   * once, which is harmless but wasted.
   */
  @IsInt()
  @Min(1_000)
  PURGE_RETRY_MS: number = 30_000;

  /** The NATS password of user `workflow`. Unset, workflow connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_WORKFLOW_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_WORKFLOW_PASSWORD?: string;

  override productionProblems(): string[] {
    return natsProductionProblems(this.natsEndpoint);
  }

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'workflow', password: this.NATS_WORKFLOW_PASSWORD };
  }
}
