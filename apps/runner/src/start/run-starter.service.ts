import { DomainException } from '#common';
import {
  CatalogSubjects,
  IDEMPOTENCY_KEY_TTL_HOURS,
  type Principal,
  type StartRunReply,
  type StartRunRequest,
  validateDiagram,
  type WorkflowRunDto,
  WorkflowSubjects,
} from '#contracts';
import { ExecutionSlots, RpcClient } from '#nats';
import { newId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { RunEngine } from '../engine/run-engine.service.js';
import { LeaseLost } from '../engine/run-state.js';
import { TriggerExecutor } from '../executors/trigger.executor.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { toWorkflowRunDto } from '../runs/run.mapper.js';
import { type NewRun, RunRepository } from '../runs/run.repository.js';
import { chooseTrigger } from './trigger-choice.util.js';

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Starts runs: asks workflow what to run, checks it, counts the run against the plan, writes the
 * run with its trigger step, then either executes it here (a free slot: the run was claimed in the
 * same statement) or queues its job. The run row is written first, so a run that was accepted is
 * never lost: a failed publish, or a runner that dies mid-run, leaves a row the sweeper requeues.
 */
@Injectable()
export class RunStarter {
  constructor(
    private readonly runs: RunRepository,
    private readonly rpc: RpcClient,
    private readonly jobs: RunJobs,
    private readonly engine: RunEngine,
    private readonly slots: ExecutionSlots,
    private readonly config: RunnerConfig,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  async start(principal: Principal, request: StartRunRequest): Promise<StartRunReply<WorkflowRunDto>> {
    const { organizationId } = principal;
    const key = request.idempotencyKey ?? null;
    if (key !== null) {
      const earlier = await this.runs.findByIdempotencyKey(organizationId, key, IDEMPOTENCY_KEY_TTL_HOURS);
      if (earlier) return { run: toWorkflowRunDto(earlier), replayed: true };
    }

    const began = performance.now();
    const target = await this.rpc.request(WorkflowSubjects.runTarget, principal, {
      workflowId: request.workflowId,
      draft: request.draft,
    });
    const issues = validateDiagram(target.diagram);
    if (issues.length > 0) {
      throw new DomainException('invalid_workflow', 'The workflow cannot run as it is.', { issues });
    }
    const trigger = chooseTrigger(target.diagram, request.triggerNodeId);

    const targeted = performance.now();
    const runId = newId();
    await this.rpc.request(CatalogSubjects.usageConsumeRun, principal, { runId });
    const counted = performance.now();
    const run: NewRun = {
      id: runId,
      organizationId,
      workflowId: target.workflowId,
      workflowName: target.workflowName,
      projectId: target.projectId,
      version: target.version,
      trigger: request.trigger,
      triggerNodeId: trigger.id,
      createdBy: principal.userId,
      principal,
      input: request.input,
      diagram: target.diagram,
      timeZone: target.timeZone,
      idempotencyKey: key,
      triggerOutput: TriggerExecutor.outputFor(request.input),
      createdAt: new Date(),
    };
    if (this.config.RUNNER_START_MODE === 'inline' && this.engine.acceptsInline && this.slots.tryTake()) {
      const execution = this.engine.startNew(run, this.slots);
      try {
        await execution.durable;
      } catch (error) {
        if (error instanceof LeaseLost && key !== null) return this.replay(organizationId, key);
        throw error;
      }
      this.timed(runId, began, targeted, counted, 'inline');
      return { run: toWorkflowRunDto(execution.snapshot()), replayed: false };
    }
    const created = await this.runs.insert(run);
    if (!created) return this.replay(organizationId, key);
    await this.jobs.publishSoon({ runId, dispatch: 0 });
    this.timed(runId, began, targeted, counted, 'queue');
    return { run: toWorkflowRunDto(created), replayed: false };
  }

  /** Where a start's time went: asking workflow, counting with catalog, recording (and queueing). */
  private timed(
    runId: string,
    began: number,
    targeted: number,
    counted: number,
    path: 'inline' | 'queue',
  ): void {
    this.logger.debug(
      {
        runId,
        path,
        targetMs: round(targeted - began),
        countMs: round(counted - targeted),
        recordMs: round(performance.now() - counted),
      },
      'run started',
    );
  }

  /** Another start with the same key won the race; answer its run. */
  private async replay(organizationId: string, key: string | null): Promise<StartRunReply<WorkflowRunDto>> {
    const winner =
      key === null
        ? null
        : await this.runs.findByIdempotencyKey(organizationId, key, IDEMPOTENCY_KEY_TTL_HOURS);
    if (!winner) throw new DomainException('internal', 'The run could not be recorded; try again.');
    return { run: toWorkflowRunDto(winner), replayed: true };
  }
}
