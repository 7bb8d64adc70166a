import { IsInt, IsString, Max, Min } from 'class-validator';

import type { ProductionChecked } from './production.util.js';

/**
 * What every NATS service reads from the environment. A service's configuration class extends it and
 * sets its own `HEALTH_PORT` default.
 */
export abstract class ServiceConfig implements ProductionChecked {
  @IsString()
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/postgres';

  /** Postgres connections this process may hold at most. */
  @IsInt()
  @Min(2)
  DATABASE_POOL_SIZE: number = 10;

  @IsString()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  /**
   * How many JetStream servers keep each stream this service creates: 3 in a 3-node cluster (deploy/),
   * 1 on a single server, which refuses more.
   */
  @IsInt()
  @Min(1)
  @Max(5)
  NATS_STREAM_REPLICAS: number = 1;

  /** The HTTP port of the health probes (`/health/live`, `/health/ready`); 0 picks a free one. */
  @IsInt()
  @Min(0)
  @Max(65535)
  HEALTH_PORT: number = 0;

  /** Days this service keeps its audit entries (docs/audit.md); older ones are deleted hourly. */
  @IsInt()
  @Min(1)
  @Max(36_500)
  AUDIT_RETENTION_DAYS: number = 400;
  /**
   * How often the gauges read from a database or JetStream (queued runs, pending approvals, job
   * backlogs) are refreshed: a scrape reads the last values, never the database.
   */
  @IsInt()
  @Min(100)
  METRICS_POLL_MS: number = 15_000;

  /** What this service lacks to run in production (`refuseUnsafeProduction`). */
  abstract productionProblems(): string[];
}
