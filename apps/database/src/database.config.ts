import { NATS_PASSWORD_PATTERN, type NatsEndpoint, natsProductionProblems } from '#nats';
import { bytesOf, ServiceConfig, SIZE_PATTERN } from '#common';
import { DEFAULT_QUERY_TIMEOUT_MS, DEFAULT_RESULT_LIMIT_BYTES, MAX_BATCH_TIMEOUT_MS } from '#contracts';
import {
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

import { MAX_SHARD, shardOf } from './shards/shard-identity.util.js';

const MiB = 2 ** 20;
/** What the engine worker holds before any database opens: Node, its heap and libuv's 16 thread stacks. */
const WORKER_BASE_BYTES = 320 * MiB;
/** Reserved per thread of each open database: its stack counts against the worker's data limit. */
const THREAD_RESERVE_BYTES = 8 * MiB;

/** The worker's limit must leave room for its open databases' threads and one database's memory. */
@ValidatorConstraint({ name: 'workerMemoryFits' })
class WorkerMemoryFits implements ValidatorConstraintInterface {
  validate(value: unknown, { object }: ValidationArguments): boolean {
    const config = object as DatabaseConfig;
    return typeof value === 'string' && bytesOf(value) >= config.workerMemoryNeeded;
  }

  defaultMessage({ object }: ValidationArguments): string {
    const config = object as DatabaseConfig;
    return `DUCKDB_WORKER_MEMORY_LIMIT must be at least ${Math.ceil(config.workerMemoryNeeded / MiB)}MiB: 320MiB for the worker, 8MiB per thread of each of MAX_OPEN_DATABASES (${config.MAX_OPEN_DATABASES}) × DUCKDB_THREADS (${config.DUCKDB_THREADS}), and DUCKDB_MEMORY_LIMIT (${config.DUCKDB_MEMORY_LIMIT})`;
  }
}

export class DatabaseConfig extends ServiceConfig {
  override HEALTH_PORT: number = 3104;

  /** Database files live under `<DATA_DIR>/databases/`; only this service opens them. */
  @IsString()
  @MinLength(1)
  DATA_DIR: string = './data';

  /**
   * The shard this replica serves (docs/databases.md, "Scaling out"). Unset, it is the ordinal of the
   * StatefulSet pod named in HOSTNAME (`database-2` is shard 2), or 0.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_SHARD)
  DATABASE_SHARD?: number;

  /** Set by Kubernetes to the pod's name; read only to find the shard. */
  @IsOptional()
  @IsString()
  HOSTNAME?: string;

  /** A statement running longer is interrupted; its batch rolls back and answers 500. */
  @IsInt()
  @Min(10)
  @Max(MAX_BATCH_TIMEOUT_MS)
  QUERY_TIMEOUT_MS: number = DEFAULT_QUERY_TIMEOUT_MS;

  /**
   * A whole batch, including any wait for another batch's writes, ends within this; callers wait a
   * little longer (`QUERY_REPLY_TIMEOUT_MS`), so they always hear how it ended.
   */
  @IsInt()
  @Min(100)
  @Max(MAX_BATCH_TIMEOUT_MS)
  BATCH_TIMEOUT_MS: number = 120_000;

  /** Serialized rows one batch may return before it rolls back with result_too_large. */
  @IsInt()
  @Min(1)
  RESULT_LIMIT_BYTES: number = DEFAULT_RESULT_LIMIT_BYTES;

  /** Databases kept open at once; the least recently used idle one is closed past this. */
  @IsInt()
  @Min(1)
  MAX_OPEN_DATABASES: number = 64;

  /** An open database nobody used for this long is checkpointed and closed. */
  @IsInt()
  @Min(1000)
  IDLE_CLOSE_MS: number = 60_000;

  /** Worker threads of each open database. */
  @IsInt()
  @Min(1)
  @Max(64)
  DUCKDB_THREADS: number = 2;

  /** Memory each open database may use before it spills to its temporary directory, e.g. `512MB`. */
  @IsString()
  @Matches(SIZE_PATTERN, { message: 'DUCKDB_MEMORY_LIMIT must be a size such as 512MB or 2GB' })
  DUCKDB_MEMORY_LIMIT: string = '512MB';

  /** What one database may spill to its own temporary directory (`max_temp_directory_size`). */
  @IsString()
  @Matches(SIZE_PATTERN, { message: 'DUCKDB_SPILL_LIMIT must be a size such as 2GB' })
  DUCKDB_SPILL_LIMIT: string = '2GB';

  /**
   * The data-size limit (RLIMIT_DATA) of the engine worker, the child process that holds every open
   * database of this replica: whatever a query makes DuckDB allocate, the worker stays under it.
   */
  @IsString()
  @Matches(SIZE_PATTERN, { message: 'DUCKDB_WORKER_MEMORY_LIMIT must be a size such as 2GiB' })
  @Validate(WorkerMemoryFits)
  DUCKDB_WORKER_MEMORY_LIMIT: string = '2GiB';

  /**
   * Batches of one organization this replica runs at once; more wait for a turn within their own
   * deadline (docs/databases.md, "Bounds").
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  BATCHES_PER_ORGANIZATION: number = 4;

  /** Batches of one organization that may wait for a turn; past it a batch is refused at once. */
  @IsInt()
  @Min(0)
  @Max(10_000)
  BATCHES_WAITING_PER_ORGANIZATION: number = 64;

  /** Timeout of requests this service makes to others (the plan limits). */
  @IsInt()
  @Min(100)
  RPC_TIMEOUT_MS: number = 10_000;

  /** The NATS password of user `database`. Unset, database connects anonymously: for development only. */
  @IsOptional()
  @Matches(NATS_PASSWORD_PATTERN, {
    message: 'NATS_DATABASE_PASSWORD must be 16 to 128 letters and digits, starting with a letter',
  })
  NATS_DATABASE_PASSWORD?: string;

  /** The least DUCKDB_WORKER_MEMORY_LIMIT these settings need. */
  get workerMemoryNeeded(): number {
    return (
      WORKER_BASE_BYTES +
      this.MAX_OPEN_DATABASES * this.DUCKDB_THREADS * THREAD_RESERVE_BYTES +
      bytesOf(this.DUCKDB_MEMORY_LIMIT)
    );
  }

  get shard(): number {
    return shardOf(this.DATABASE_SHARD, this.HOSTNAME);
  }

  override productionProblems(): string[] {
    return natsProductionProblems(this.natsEndpoint);
  }

  get natsEndpoint(): NatsEndpoint {
    return { url: this.NATS_URL, identity: 'database', password: this.NATS_DATABASE_PASSWORD };
  }
}
