import { createLogger } from '#common';
import { ExecutionSlots, ServiceWiringModule } from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { Logger } from 'pino';

import { RunnerAuditHandler, runnerAuditRetention } from './audit/runner-audit.js';
import { ChildRunRepository } from './children/child-run.repository.js';
import { ChildRuns } from './children/child-runs.service.js';
import { ChildWakes } from './children/child-wakes.service.js';
import { RunGaugeRepository } from './metrics/run-gauge.repository.js';
import { RunGauges } from './metrics/run-gauges.service.js';
import { ENGINE_RESOURCES, type EngineResources } from './engine/engine-resources.js';
import { RunControlService } from './control/run-control.service.js';
import { RunEngine } from './engine/run-engine.service.js';
import { RunEndingRepository } from './endings/run-ending.repository.js';
import { RunEndings } from './endings/run-endings.service.js';
import { RunNotificationsHandler } from './endings/run-notifications.handler.js';
import { RunTimesRepository } from './endings/run-times.repository.js';
import { ConditionExecutor } from './executors/condition.executor.js';
import { ActionExecutor } from './executors/action.executor.js';
import { AgentExecutor } from './executors/agent.executor.js';
import { CodeExecutor } from './executors/code.executor.js';
import { CodeWorkers } from './executors/code-workers.js';
import { DatabaseExecutor } from './executors/database.executor.js';
import { DelayExecutor } from './executors/delay.executor.js';
import { LoopExecutor } from './executors/loop.executor.js';
import { NodeExecutorRegistry } from './executors/node-executor.registry.js';
import { TriggerExecutor } from './executors/trigger.executor.js';
import { InheritedScopes } from './loops/inherited-scopes.service.js';
import { LoopEnds } from './loops/loop-ends.service.js';
import { LoopIterations } from './loops/loop-iterations.repository.js';
import { WorkflowExecutor } from './executors/workflow.executor.js';
import { OPERATION_HANDLERS, operationProviders } from './operations/operations.providers.js';
import { AdmittedRuns } from './flow/admitted-runs.service.js';
import { OrganizationBacklogs } from './flow/organization-backlogs.service.js';
import { RunJobConsumer } from './queue/run-job.consumer.js';
import { RunJobs } from './queue/run-jobs.service.js';
import { RetentionPurge } from './retention/retention-purge.service.js';
import { RetentionRepository } from './retention/retention.repository.js';
import { RunnerConfig } from './runner.config.js';
import { runnerDataSource } from './runner.database.js';
import { RUNNER_LOGGER } from './runner.tokens.js';
import { RunChanges } from './runs/run-changes.service.js';
import { RunControlRepository } from './runs/run-control.repository.js';
import { RunListRepository } from './runs/run-list.repository.js';
import { RunRepository } from './runs/run.repository.js';
import { RunWaitsHandler } from './runs/run-waits.handler.js';
import { RunWaits } from './runs/run-waits.service.js';
import { RunsHandler } from './runs/runs.handler.js';
import { RunsService } from './runs/runs.service.js';
import { RunStarter } from './start/run-starter.service.js';
import { ErrorWorkflowRepository } from './error-workflows/error-workflow.repository.js';
import { ErrorWorkflows } from './error-workflows/error-workflows.service.js';
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
  LoopExecutor,
  WorkflowExecutor,
  CodeExecutor,
];

@Module({})
export class RunnerModule {
  static forRoot(config: RunnerConfig): DynamicModule {
    const logger = createLogger('runner');
    return {
      module: RunnerModule,
      imports: [
        ServiceDatabaseModule.forRoot(runnerDataSource(config.DATABASE_URL, config.DATABASE_POOL_SIZE)),
        DiscoveryModule,
        ServiceWiringModule.forService({
          nats: config.natsEndpoint,
          connection: { name: 'runner-engine', check: 'nats_engine' },
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          jetStream: {
            replicas: config.NATS_STREAM_REPLICAS,
            logger,
            queues: { runs_stream: RunJobs },
            metricsPollMs: config.METRICS_POLL_MS,
          },
        }),
      ],
      controllers: [RunnerAuditHandler, RunsHandler, RunWaitsHandler, ...OPERATION_HANDLERS],
      providers: [
        runnerAuditRetention(config.AUDIT_RETENTION_DAYS),
        { provide: RunnerConfig, useValue: config },
        { provide: RUNNER_LOGGER, useValue: logger },
        {
          provide: ENGINE_RESOURCES,
          inject: [
            RunRepository,
            NodeExecutorRegistry,
            RunChanges,
            ChildWakes,
            InheritedScopes,
            LoopEnds,
            RUNNER_LOGGER,
          ],
          useFactory: (
            runs: RunRepository,
            executors: NodeExecutorRegistry,
            changes: RunChanges,
            childWakes: ChildWakes,
            scopes: InheritedScopes,
            loopEnds: LoopEnds,
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
            changed: (runId, status) => {
              changes.changed(runId, status);
              childWakes.changed(runId, status);
            },
            ended: (run) => {
              childWakes.ended(run);
              loopEnds.ended(run);
            },
            inheritedScope: (run) => scopes.of(run),
            now: () => new Date(),
          }),
        },
        { provide: ExecutionSlots, useValue: new ExecutionSlots(config.RUNNER_CONCURRENCY) },
        NodeExecutorRegistry,
        CodeWorkers,
        ...NODE_EXECUTORS,
        RunRepository,
        InheritedScopes,
        LoopIterations,
        LoopEnds,
        RunListRepository,
        RunControlRepository,
        RunChanges,
        ChildRunRepository,
        ChildRuns,
        ChildWakes,
        RunEngine,
        RunJobs,
        RunJobConsumer,
        AdmittedRuns,
        OrganizationBacklogs,
        RunSweeper,
        RunEndings,
        RunEndingRepository,
        RunTimesRepository,
        RunNotificationsHandler,
        RunStarter,
        RunTargets,
        ErrorWorkflowRepository,
        ErrorWorkflows,
        RunsService,
        RunControlService,
        RunWaits,
        RunGaugeRepository,
        RunGauges,
        RetentionRepository,
        RetentionPurge,
        ...operationProviders(config),
      ],
    };
  }
}
