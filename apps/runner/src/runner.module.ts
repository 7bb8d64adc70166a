import { createLogger } from '#common';
import {
  connectNats,
  ExecutionSlots,
  HealthModule,
  JetStreamQueue,
  NatsHealthIndicator,
  ReadinessChecks,
  RpcClient,
  ServiceHealthController,
} from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { ENGINE_RESOURCES, type EngineResources } from './engine/engine-resources.js';
import { RunEngine } from './engine/run-engine.service.js';
import { ConditionExecutor } from './executors/condition.executor.js';
import { ActionExecutor } from './executors/action.executor.js';
import { AgentExecutor } from './executors/agent.executor.js';
import { DatabaseExecutor } from './executors/database.executor.js';
import { DelayExecutor } from './executors/delay.executor.js';
import { NodeExecutorRegistry } from './executors/node-executor.registry.js';
import { TriggerExecutor } from './executors/trigger.executor.js';
import { RunJobConsumer } from './queue/run-job.consumer.js';
import { RunJobs } from './queue/run-jobs.service.js';
import { RunnerConfig } from './runner.config.js';
import { runnerDataSource } from './runner.database.js';
import { NATS_CONNECTION, RUNNER_LOGGER } from './runner.tokens.js';
import { RunChanges } from './runs/run-changes.service.js';
import { RunControlRepository } from './runs/run-control.repository.js';
import { RunListRepository } from './runs/run-list.repository.js';
import { RunRepository } from './runs/run.repository.js';
import { RunsHandler } from './runs/runs.handler.js';
import { RunsService } from './runs/runs.service.js';
import { RunStarter } from './start/run-starter.service.js';
import { RunTargets } from './start/run-targets.service.js';
import { RunSweeper } from './sweeper/run-sweeper.service.js';

/** Node executors of this service. */
const NODE_EXECUTORS = [
  TriggerExecutor,
  ConditionExecutor,
  DelayExecutor,
  DatabaseExecutor,
  ActionExecutor,
  AgentExecutor,
];

@Module({})
export class RunnerModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nats: NatsConnection) {}

  static forRoot(config: RunnerConfig): DynamicModule {
    return {
      module: RunnerModule,
      imports: [
        ServiceDatabaseModule.forRoot(runnerDataSource(config.DATABASE_URL, config.DATABASE_POOL_SIZE)),
        DiscoveryModule,
        HealthModule,
      ],
      controllers: [ServiceHealthController, RunsHandler],
      providers: [
        { provide: RunnerConfig, useValue: config },
        { provide: RUNNER_LOGGER, useValue: createLogger('runner') },
        {
          provide: NATS_CONNECTION,
          useFactory: (): Promise<NatsConnection> => connectNats(config.natsEndpoint, 'runner-engine'),
        },
        {
          provide: RpcClient,
          inject: [NATS_CONNECTION],
          useFactory: (nats: NatsConnection) => new RpcClient(nats, config.RPC_TIMEOUT_MS),
        },
        {
          provide: JetStreamQueue,
          inject: [NATS_CONNECTION, RUNNER_LOGGER],
          useFactory: (nats: NatsConnection, logger: Logger) =>
            new JetStreamQueue(nats, logger, config.NATS_STREAM_REPLICAS),
        },
        {
          provide: ReadinessChecks,
          inject: [TypeOrmHealthIndicator, NatsHealthIndicator, NATS_CONNECTION, JetStreamQueue, RunJobs],
          useFactory: (
            postgres: TypeOrmHealthIndicator,
            nats: NatsHealthIndicator,
            engine: NatsConnection,
            queue: JetStreamQueue,
            jobs: RunJobs,
          ) =>
            new ReadinessChecks([
              () => postgres.pingCheck('postgres'),
              () => nats.pingCheck('nats_engine', engine),
              () => nats.streamCheck('runs_stream', queue, jobs.definition),
            ]),
        },
        {
          provide: ENGINE_RESOURCES,
          inject: [RunRepository, NodeExecutorRegistry, RunChanges, RUNNER_LOGGER],
          useFactory: (
            runs: RunRepository,
            executors: NodeExecutorRegistry,
            changes: RunChanges,
            logger: Logger,
          ): EngineResources => ({
            runs,
            executors,
            settings: {
              leaseMs: config.RUNNER_LEASE_MS,
              maxClaims: config.RUNNER_MAX_CLAIMS,
              limits: config.runLimits,
            },
            logger,
            changed: (runId, status) => changes.changed(runId, status),
            now: () => new Date(),
          }),
        },
        { provide: ExecutionSlots, useValue: new ExecutionSlots(config.RUNNER_CONCURRENCY) },
        NodeExecutorRegistry,
        ...NODE_EXECUTORS,
        RunRepository,
        RunListRepository,
        RunControlRepository,
        RunChanges,
        RunEngine,
        RunJobs,
        RunJobConsumer,
        RunSweeper,
        RunStarter,
        RunTargets,
        RunsService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }
}
