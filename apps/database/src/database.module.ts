import { bytesOf, createLogger } from '#common';
import { RpcClient, RunCancellations, ServiceWiringModule } from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';

import { DatabaseAuditHandler, databaseAuditRetention } from './audit/database-audit.js';
import type { DatabaseConfig } from './database.config.js';
import { databaseDataSource } from './database.data-source.js';
import { LOGGER, QUERY_SETTINGS, type QuerySettings, RPC_TIMEOUT_MS, SHARD } from './database.tokens.js';
import { DatabaseRepository } from './databases/database.repository.js';
import { DatabasesHandler } from './databases/databases.handler.js';
import { DatabasesService } from './databases/databases.service.js';
import { PlanClient } from './databases/plan.client.js';
import { StorageService } from './databases/storage.service.js';
import { DatabaseFiles } from './engine/database-files.js';
import { DatabaseEngine } from './engine/database-engine.js';
import { QueryHandler } from './query/query.handler.js';
import { QueryStreamServer } from './query/query-stream.server.js';
import { QueryService } from './query/query.service.js';
import { MoveService } from './shards/move.service.js';
import { ShardClient } from './shards/shard.client.js';
import { ShardRegistry } from './shards/shard-registry.service.js';
import { ShardRepository } from './shards/shard.repository.js';
import { ShardServer } from './shards/shard.server.js';
import { ShardsHandler } from './shards/shards.handler.js';
import { ShardsService } from './shards/shards.service.js';

/** How long running batches may take to finish when the service is asked to stop. */
const SHUTDOWN_GRACE_MS = 30_000;

@Module({})
export class DatabaseModule implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(private readonly engine: DatabaseEngine) {}

  static forRoot(config: DatabaseConfig): DynamicModule {
    const settings: QuerySettings = {
      statementTimeoutMs: config.QUERY_TIMEOUT_MS,
      batchTimeoutMs: config.BATCH_TIMEOUT_MS,
      resultLimitBytes: config.RESULT_LIMIT_BYTES,
      batchesPerOrganization: config.BATCHES_PER_ORGANIZATION,
      batchesWaitingPerOrganization: config.BATCHES_WAITING_PER_ORGANIZATION,
    };
    const logger = createLogger('database');
    return {
      module: DatabaseModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          ...databaseDataSource(config.DATABASE_URL),
          poolSize: config.DATABASE_POOL_SIZE,
        }),
        ServiceWiringModule.forService({
          nats: config.natsEndpoint,
          connection: { name: 'database-client', check: 'nats_client' },
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
        }),
      ],
      controllers: [DatabaseAuditHandler, DatabasesHandler, QueryHandler, ShardsHandler],
      providers: [
        databaseAuditRetention(config.AUDIT_RETENTION_DAYS),
        { provide: LOGGER, useValue: logger },
        RunCancellations.provider(logger),
        { provide: QUERY_SETTINGS, useValue: settings },
        { provide: SHARD, useValue: config.shard },
        { provide: RPC_TIMEOUT_MS, useValue: config.RPC_TIMEOUT_MS },
        { provide: PlanClient, inject: [RpcClient], useFactory: (rpc: RpcClient) => new PlanClient(rpc) },
        {
          provide: DatabaseFiles,
          useFactory: async () => {
            const files = new DatabaseFiles(config.DATA_DIR);
            await files.prepare();
            return files;
          },
        },
        {
          // The DuckDB engine runs in a worker process under DUCKDB_WORKER_MEMORY_LIMIT; it is
          // started here, so the service does not come up without it.
          provide: DatabaseEngine,
          inject: [StorageService, LOGGER],
          useFactory: async (storage: StorageService, logger: Logger) => {
            const engine = new DatabaseEngine({
              settings: {
                dataDir: config.DATA_DIR,
                threads: config.DUCKDB_THREADS,
                memoryLimit: config.DUCKDB_MEMORY_LIMIT,
                spillLimit: config.DUCKDB_SPILL_LIMIT,
                maxOpen: config.MAX_OPEN_DATABASES,
                idleCloseMs: config.IDLE_CLOSE_MS,
              },
              dataLimitBytes: bytesOf(config.DUCKDB_WORKER_MEMORY_LIMIT),
              logger,
              onStorage: (databaseId, bytes) => void storage.record(databaseId, bytes, { always: true }),
            });
            await engine.start();
            return engine;
          },
        },
        DatabaseRepository,
        StorageService,
        DatabasesService,
        QueryService,
        QueryStreamServer,
        ShardRepository,
        ShardClient,
        ShardRegistry,
        MoveService,
        ShardServer,
        ShardsService,
      ],
    };
  }

  /** Running batches finish (or are rolled back) while the transports can still carry their answers. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.engine.drain(SHUTDOWN_GRACE_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engine.closeAll();
  }
}
