import {
  DomainException,
  inSpan,
  mapConcurrently,
  SERVICE_ATTRIBUTE,
  type SpanOptions,
  toErrorBody,
  traceParentOf,
} from '#common';
import {
  CatalogSubjects,
  type DiagramNode,
  IDEMPOTENCY_KEY_TTL_HOURS,
  type Principal,
  type RunTrigger,
  type StartRunReply,
  type StartRunRequest,
  type StartRunsResult,
  type WorkflowRunDto,
} from '#contracts';
import { ExecutionSlots, RpcClient } from '#nats';
import { newId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { ChildRunRepository } from '../children/child-run.repository.js';
import { RunEngine } from '../engine/run-engine.service.js';
import type { StepRun } from '../executors/node-executor.js';
import { LeaseLost, type RunRecord, type StepRecord, WorkflowDeleted } from '../engine/run-state.js';
import { TriggerExecutor } from '../executors/trigger.executor.js';
import { OrganizationBacklogs } from '../flow/organization-backlogs.service.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { toWorkflowRunDto } from '../runs/run-dto.util.js';
import { type ChildPlace, type NewRun, queuedRunOf } from '../runs/new-run.js';
import { type InsertOutcome, type KeyHolder, RunRepository } from '../runs/run.repository.js';
import { runStarted } from '../metrics/run.metrics.js';
import { RunSweeper } from '../sweeper/run-sweeper.service.js';
import { keyReuse, requestFingerprint } from './idempotency.util.js';
import { type ResolvedTarget, RunTargets } from './run-targets.service.js';
import { type HeldBy, heldUntil, type RunFlow, runFlowOf } from './run-flow.js';
import { chooseTrigger, errorWorkflowTrigger } from './trigger-choice.util.js';

/** Counts given back at once by a start of many runs (each is a request to catalog). */
const REFUNDS_AT_ONCE = 8;

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * What a called workflow's run says started it: another run did, for the same principal, which is
 * what an API start is (the contract's triggers have no value of their own for it).
 */
const CHILD_TRIGGER: RunTrigger = 'api';

/**
 * Starts runs: asks workflow what to run and checks it while catalog counts the run against the
 * plan, writes the run with its trigger step, then either executes it here (a free slot: the run
 * was claimed in the same statement) or queues its job. The run row is written first, so a run that
 * was accepted is never lost: a failed publish, or a runner that dies mid-run, leaves a row the
 * sweeper requeues.
 * The write is refused when the workflow was deleted after it was read: such a start answers
 * workflow_not_found, as it would had it come a moment later.
 */
@Injectable()
export class RunStarter {
  constructor(
    private readonly runs: RunRepository,
    private readonly rpc: RpcClient,
    private readonly targets: RunTargets,
    private readonly jobs: RunJobs,
    private readonly engine: RunEngine,
    private readonly slots: ExecutionSlots,
    private readonly config: RunnerConfig,
    private readonly children: ChildRunRepository,
    private readonly backlogs: OrganizationBacklogs,
    private readonly sweeper: RunSweeper,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  async start(
    principal: Principal,
    request: StartRunRequest,
    options: StartOptions = {},
  ): Promise<StartRunReply<WorkflowRunDto>> {
    const { organizationId } = principal;
    if (request.notBefore !== undefined) {
      throw new DomainException('invalid_request', 'Only runs started together are held until a time.');
    }
    const key: IdempotentStart | null =
      request.idempotencyKey === undefined
        ? null
        : {
            key: request.idempotencyKey,
            workflowId: request.workflowId,
            fingerprint: requestFingerprint(request),
          };
    if (key !== null) {
      const earlier = await this.runs.findByIdempotencyKey(
        organizationId,
        key.key,
        IDEMPOTENCY_KEY_TTL_HOURS,
      );
      if (earlier) return replayOf(earlier, key);
    }

    const began = performance.now();
    const runId = newId();
    // Counted while workflow is asked for the target rather than after: one round trip's wait less
    // per start. A start that then fails without writing its run gives the count back (`refund`).
    const counting = this.rpc.request(CatalogSubjects.usageConsumeRun, principal, { runId });
    counting.catch(() => undefined);
    let target: ResolvedTarget;
    let trigger: DiagramNode;
    try {
      target = await this.targets.resolve(principal, request.workflowId, request.draft);
      if (request.trigger === 'event' && target.pausedAt !== null) {
        // Events that happen while a workflow is paused never run (contract: resume rules), nor do
        // failures it would handle as an error workflow (docs/workflows.md, "Error workflows").
        throw new DomainException(
          'workflow_paused',
          options.errorOfRunId === undefined
            ? 'The workflow is paused: app events start no runs.'
            : 'The workflow is paused: as an error workflow it starts no runs until it is resumed.',
        );
      }
      if (target.issues.length > 0) {
        throw new DomainException('invalid_workflow', 'The workflow cannot run as it is.', {
          issues: target.issues,
        });
      }
      trigger =
        options.errorOfRunId === undefined
          ? chooseTrigger(target.diagram, request.triggerNodeId)
          : errorWorkflowTrigger(target.diagram);
    } catch (error) {
      await this.refund(principal, runId, counting);
      throw error;
    }
    const targeted = performance.now();
    const { queueShare } = await counting;
    const counted = performance.now();
    // The run's span: its steps' parent, in the trace of the request that started it, or a trace of
    // its own for a schedule's or an event's run (docs/tracing.md).
    const createdAt = new Date();
    const flow = await this.flowOf(principal, runId, counting, () =>
      runFlowOf(target.diagram, request.input, createdAt, this.shareOf(queueShare)),
    );
    return inSpan('run', runSpanOptions(request.trigger, runId, target.workflowId), async (span) => {
      const run = newRunOf(principal, request, target, {
        id: runId,
        triggerNodeId: trigger.id,
        key,
        createdAt,
        traceParent: traceParentOf(span),
        errorOfRunId: options.errorOfRunId ?? null,
        flow,
      });
      // A run its workflow's flow control may hold is written queued and goes through its gates; so
      // is one of an organization with a backlog, behind its earlier runs.
      if (
        this.config.RUNNER_START_MODE === 'inline' &&
        flow.gate === null &&
        !this.backlogs.has(organizationId) &&
        this.engine.acceptsInline &&
        this.slots.tryTake()
      ) {
        const execution = this.engine.startNew(run, this.slots);
        try {
          await execution.durable;
        } catch (error) {
          if (error instanceof WorkflowDeleted) {
            await this.refund(principal, runId, counting);
            throw DomainException.notFound('workflow', request.workflowId);
          }
          if (error instanceof LeaseLost && key !== null) {
            await this.refund(principal, runId, counting);
            return this.replay(organizationId, key);
          }
          throw error;
        }
        this.timed(runId, began, targeted, counted, 'inline');
        runStarted(request.trigger);
        return { run: toWorkflowRunDto(execution.snapshot()), replayed: false };
      }
      const outcome = await this.runs.insert(run);
      switch (outcome) {
        case 'workflow_deleted':
          await this.refund(principal, runId, counting);
          throw DomainException.notFound('workflow', request.workflowId);
        case 'key_taken':
          await this.refund(principal, runId, counting);
          return this.replay(organizationId, key);
        case 'recorded':
          await this.jobs.publishSoon({ runId, dispatch: 0 });
          break;
        case 'held':
          // Its job is published when a gate lets it through (`AdmittedRuns`).
          if (flow.gate === null) this.backlogs.saw(organizationId);
          break;
      }
      this.timed(runId, began, targeted, counted, 'queue');
      runStarted(request.trigger);
      return { run: toWorkflowRunDto(queuedRunOf(run, await this.heldBy(run, outcome))), replayed: false };
    });
  }

  /**
   * Starts many runs of one organization's published workflows through the queue, each as `start`
   * would, with one request to workflow, one to catalog and one statement for them all. Each start's
   * answer is in its place: its run, started now or earlier for its key, or the error `start` would
   * have thrown for it. Every start carries a key that names what it starts for (a due time), so a
   * key's earlier run is answered when it is of the same workflow, without comparing the bodies.
   * Refusals that concern the whole batch (catalog or workflow unreachable) are thrown, nothing written.
   */
  async startMany(principal: Principal, starts: readonly StartRunRequest[]): Promise<StartRunsResult[]> {
    const { organizationId } = principal;
    const results = new Array<StartRunsResult>(starts.length);
    const refuse = (index: number, error: unknown) => {
      if (!(error instanceof DomainException)) throw error;
      results[index] = toErrorBody(error);
    };
    const keys = starts.flatMap(({ idempotencyKey }) =>
      idempotencyKey === undefined ? [] : [idempotencyKey],
    );
    // Workflow is asked about every start's workflow while the keys are looked up: a key's earlier
    // run is rare (a due time sent again after a crash), one round trip less is every batch's.
    const [earlier, targets] = await Promise.all([
      this.runs.idempotencyKeyHolders(organizationId, keys, IDEMPOTENCY_KEY_TTL_HOURS),
      this.targets.resolvePublished(
        principal,
        starts.map(({ workflowId }) => workflowId),
      ),
    ]);
    const fresh: number[] = [];
    starts.forEach((start, index) => {
      if (start.draft || start.idempotencyKey === undefined) {
        refuse(
          index,
          new DomainException(
            'invalid_request',
            'Runs started together are of published workflows, each with an idempotency key.',
          ),
        );
        return;
      }
      const holder = earlier.get(start.idempotencyKey);
      if (holder === undefined) {
        fresh.push(index);
      } else if (holder.workflowId === start.workflowId) {
        results[index] = { runId: holder.runId, replayed: true };
      } else {
        refuse(index, keyOfOtherWorkflow());
      }
    });
    const planned: Array<{ index: number; target: ResolvedTarget; trigger: DiagramNode }> = [];
    for (const index of fresh) {
      const start = starts[index];
      const target = targets.get(start.workflowId);
      try {
        if (target === undefined || target instanceof DomainException) {
          throw target ?? DomainException.notFound('workflow', start.workflowId);
        }
        if (start.trigger === 'event' && target.pausedAt !== null) {
          throw new DomainException('workflow_paused', 'The workflow is paused: app events start no runs.');
        }
        if (target.issues.length > 0) {
          throw new DomainException('invalid_workflow', 'The workflow cannot run as it is.', {
            issues: target.issues,
          });
        }
        planned.push({ index, target, trigger: chooseTrigger(target.diagram, start.triggerNodeId) });
      } catch (error) {
        refuse(index, error);
      }
    }
    if (planned.length === 0) return results;

    const runIds = planned.map(() => newId());
    const { refused, limit, queueShare } = await this.rpc.request(
      CatalogSubjects.usageConsumeRuns,
      principal,
      {
        runIds,
      },
    );
    const overLimit = new Set(refused);
    const createdAt = new Date();
    const share = this.shareOf(queueShare);
    const runs: Array<{ index: number; run: NewRun }> = [];
    const refunds: string[] = [];
    for (const [place, { index, target, trigger }] of planned.entries()) {
      const start = starts[index];
      const runId = runIds[place];
      if (overLimit.has(runId)) {
        refuse(index, DomainException.planLimit('runs', limit));
        continue;
      }
      let flow: RunFlow;
      try {
        flow = runFlowOf(target.diagram, start.input, createdAt, share);
        if (start.notBefore !== undefined) flow = heldUntil(flow, new Date(start.notBefore), createdAt);
      } catch (error) {
        refunds.push(runId);
        refuse(index, error);
        continue;
      }
      const traceParent = await inSpan(
        'run',
        runSpanOptions(start.trigger, runId, target.workflowId),
        (span) => Promise.resolve(traceParentOf(span)),
      );
      const key =
        start.idempotencyKey === undefined
          ? null
          : { key: start.idempotencyKey, fingerprint: requestFingerprint(start) };
      runs.push({
        index,
        run: newRunOf(principal, start, target, {
          id: runId,
          triggerNodeId: trigger.id,
          key,
          createdAt,
          traceParent,
          errorOfRunId: null,
          flow,
        }),
      });
    }

    const outcomes = await this.runs.insertMany(
      organizationId,
      share,
      runs.map(({ run }) => run),
    );
    const beaten: Array<{ index: number; run: NewRun }> = [];
    const published: Array<Promise<void>> = [];
    for (const { index, run } of runs) {
      switch (outcomes.get(run.id)) {
        case 'recorded':
          published.push(this.jobs.publishSoon({ runId: run.id, dispatch: 0 }));
          break;
        case 'held':
          if (run.flow.gate === null) this.backlogs.saw(organizationId);
          // Let through at its time by this runner's sweep, not at its next interval.
          if (run.flow.gate === 'schedule' && run.flow.releaseAt !== null) {
            this.sweeper.expectWake(run.flow.releaseAt);
          }
          break;
        case 'workflow_deleted':
        case undefined:
          refunds.push(run.id);
          refuse(index, DomainException.notFound('workflow', run.workflowId));
          continue;
        case 'key_taken':
          // Another start with the same key was written between the look-up and this write.
          refunds.push(run.id);
          beaten.push({ index, run });
          continue;
      }
      results[index] = { runId: run.id, replayed: false };
      runStarted(run.trigger);
    }
    if (beaten.length > 0) {
      const winners = await this.runs.idempotencyKeyHolders(
        organizationId,
        beaten.map(({ run }) => run.idempotencyKey ?? ''),
        IDEMPOTENCY_KEY_TTL_HOURS,
      );
      for (const { index, run } of beaten) {
        const winner = winners.get(run.idempotencyKey ?? '');
        if (winner === undefined) {
          refuse(index, new DomainException('internal', 'The run could not be recorded; try again.'));
        } else if (winner.workflowId === run.workflowId) {
          results[index] = { runId: winner.runId, replayed: true };
        } else {
          refuse(index, keyOfOtherWorkflow());
        }
      }
    }
    await Promise.all([
      ...published,
      mapConcurrently(refunds, REFUNDS_AT_ONCE, (runId) => this.refund(principal, runId, Promise.resolve())),
    ]);
    return results;
  }

  /**
   * Starts the live version of `workflowId` as a child of `parent`'s step (a `workflow` node), for the
   * parent's principal, counted against the plan like any start, and always through the queue (the
   * parent's step is executing in a slot of this runner already). `place.childKey` is the claim: a
   * start whose key is taken (the parent's step runs again after a crash) answers the child that
   * took it, counted once. Workflow's and catalog's refusals (`workflow_not_found`, `not_published`,
   * `invalid_workflow`, `plan_limit_reached`, …) are thrown as they come.
   */
  async startChild(
    parent: StepRun,
    place: Omit<ChildPlace, 'parentRunId' | 'depth'>,
    workflowId: string,
    input: string,
  ): Promise<{ runId: string; status: RunRecord['status'] }> {
    const child: ChildPlace = { ...place, parentRunId: parent.id, depth: parent.depth + 1 };
    const earlier = await this.children.byKey(parent.id, child.childKey);
    if (earlier) return { runId: earlier.id, status: earlier.status };
    const { principal } = parent;
    const runId = newId();
    const counting = this.rpc.request(CatalogSubjects.usageConsumeRun, principal, { runId });
    counting.catch(() => undefined);
    let target: ResolvedTarget;
    let trigger: DiagramNode;
    try {
      target = await this.targets.resolve(principal, workflowId, false);
      if (target.issues.length > 0) {
        throw new DomainException('invalid_workflow', 'The workflow cannot run as it is.', {
          issues: target.issues,
        });
      }
      trigger = chooseTrigger(target.diagram, undefined);
    } catch (error) {
      await this.refund(principal, runId, counting);
      throw error;
    }
    await counting;
    const createdAt = new Date();
    // Never held for the organization's share: its parent already took a place in the queue.
    const flow = await this.flowOf(principal, runId, counting, () =>
      runFlowOf(target.diagram, input, createdAt, null),
    );
    return inSpan('run', runSpanOptions(CHILD_TRIGGER, runId, target.workflowId), async (span) => {
      const run: NewRun = {
        id: runId,
        organizationId: principal.organizationId,
        workflowId: target.workflowId,
        workflowName: target.workflowName,
        projectId: target.projectId,
        version: target.version,
        trigger: CHILD_TRIGGER,
        triggerNodeId: trigger.id,
        createdBy: parent.createdBy,
        principal,
        input,
        diagram: target.diagram,
        timeZone: target.timeZone,
        idempotencyKey: null,
        idempotencyFingerprint: null,
        triggerOutput: TriggerExecutor.outputFor(input),
        createdAt,
        rerunOf: null,
        traceParent: traceParentOf(span),
        // A workflow called while handling a failure is part of that handling (docs/workflows.md).
        errorOfRunId: parent.errorOfRunId,
        child,
        flow,
      };
      const outcome = await this.runs.insert(run);
      switch (outcome) {
        case 'workflow_deleted':
          await this.refund(principal, runId, counting);
          throw DomainException.notFound('workflow', workflowId);
        case 'key_taken': {
          await this.refund(principal, runId, counting);
          const winner = await this.children.byKey(parent.id, child.childKey);
          if (!winner)
            throw new DomainException('internal', 'The child run could not be recorded; try again.');
          return { runId: winner.id, status: winner.status };
        }
        case 'recorded':
          await this.jobs.publishSoon({ runId, dispatch: 0 });
          break;
        case 'held':
          break;
      }
      runStarted(CHILD_TRIGGER);
      return { runId, status: 'queued' as const };
    });
  }

  /**
   * Starts a rerun of `old` (`rerunPlan`): a new run of the same version or stored draft, for the
   * caller, queued with its trigger step and the steps carried over, counted against the plan like
   * any start. The runner that takes its job walks on from the carried steps.
   */
  async startRerun(
    principal: Principal,
    old: RunRecord,
    triggerNodeId: string,
    plan: { input: string; carried: readonly StepRecord[] },
  ): Promise<WorkflowRunDto> {
    const runId = newId();
    const counting = this.rpc.request(CatalogSubjects.usageConsumeRun, principal, { runId });
    counting.catch(() => undefined);
    const { queueShare } = await counting;
    const createdAt = new Date();
    const flow = await this.flowOf(principal, runId, counting, () =>
      runFlowOf(old.diagram, plan.input, createdAt, this.shareOf(queueShare)),
    );
    const run: NewRun = {
      id: runId,
      organizationId: principal.organizationId,
      workflowId: old.workflowId,
      workflowName: old.workflowName,
      projectId: old.projectId,
      version: old.version,
      trigger: old.trigger,
      triggerNodeId,
      createdBy: principal.userId,
      principal,
      input: plan.input,
      diagram: old.diagram,
      timeZone: old.timeZone,
      idempotencyKey: null,
      idempotencyFingerprint: null,
      triggerOutput: TriggerExecutor.outputFor(plan.input),
      createdAt,
      rerunOf: old.id,
      traceParent: null,
      // A rerun of an error workflow's run still handles that failure, and starts no error workflow.
      errorOfRunId: old.errorOfRunId,
      flow,
    };
    // A rerun is asked for by a request: its run continues that request's trace.
    return inSpan('run', runSpanOptions('manual', runId, old.workflowId), async (span) => {
      run.traceParent = traceParentOf(span);
      const outcome = await this.runs.insert(run, plan.carried);
      if (outcome !== 'recorded' && outcome !== 'held') {
        await this.refund(principal, runId, counting);
        throw DomainException.notFound('workflow', old.workflowId);
      }
      // The new run is written by the runner's one-statement insert, a hot path: its audit entry is a
      // statement of its own right after (docs/audit.md).
      await this.runs.recordAudit(principal, {
        action: 'run.rerun',
        resource: { type: 'run', id: old.id, name: null },
        details: { workflowId: old.workflowId, newRunId: runId, carriedSteps: plan.carried.length },
      });
      if (outcome === 'recorded') await this.jobs.publishSoon({ runId, dispatch: 0 });
      runStarted('rerun');
      const queued = queuedRunOf(run, await this.heldBy(run, outcome));
      return toWorkflowRunDto({ run: queued.run, steps: [...queued.steps, ...plan.carried] });
    });
  }

  /** The runs of an organization whose plan has `queueShare` that may wait in the queue (docs/flow-control.md). */
  private shareOf(queueShare = 1): number {
    return this.config.RUNNER_ORGANIZATION_SHARE * queueShare;
  }

  /** The new run's flow (`runFlowOf`); a key that cannot be rendered refuses the start, its count given back. */
  private async flowOf(
    principal: Principal,
    runId: string,
    counting: Promise<unknown>,
    render: () => RunFlow,
  ): Promise<RunFlow> {
    try {
      return render();
    } catch (error) {
      await this.refund(principal, runId, counting);
      throw error;
    }
  }

  /**
   * Where a run just written stands: a workflow's gate may have let it through in the statement that
   * wrote it (a free slot), so that is read back; only the organization's share holds it otherwise.
   */
  private async heldBy(run: NewRun, outcome: InsertOutcome): Promise<HeldBy | null> {
    if (outcome !== 'held') return null;
    return run.flow.gate === null ? 'share' : this.runs.heldByOf(run.id);
  }

  /**
   * Gives back the count of a run that was certainly not written. A refund that fails (catalog
   * unreachable) is logged and leaves the run counted: the user's quota is then short by one run,
   * never the other way round.
   */
  private async refund(principal: Principal, runId: string, counting: Promise<unknown>): Promise<void> {
    const counted = await counting.then(
      () => true,
      () => false,
    );
    if (!counted) return;
    await this.rpc.request(CatalogSubjects.usageRefundRun, principal, { runId }).catch((error: unknown) => {
      this.logger.warn({ err: error, runId }, 'a count for a run not started could not be refunded');
    });
  }

  /**
   * Where a start's time went: asking workflow (catalog counting meanwhile), what was left of the
   * count, recording (and queueing).
   */
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

  /** Another start with the same key won the race; answer its run, if it was the same request. */
  private async replay(
    organizationId: string,
    key: IdempotentStart | null,
  ): Promise<StartRunReply<WorkflowRunDto>> {
    const winner =
      key && (await this.runs.findByIdempotencyKey(organizationId, key.key, IDEMPOTENCY_KEY_TTL_HOURS));
    if (!key || !winner) throw new DomainException('internal', 'The run could not be recorded; try again.');
    return replayOf(winner, key);
  }
}

/**
 * The span of a run's start, which its steps (on whichever runner) are children of: in the trace of
 * the request that started it (a `traceparent` it carried continues), or, for a run of a schedule or
 * an app event, a trace of its own that links to what started it.
 */
function runSpanOptions(trigger: RunTrigger, runId: string, workflowId: string): SpanOptions {
  return {
    root: trigger === 'schedule' || trigger === 'event',
    attributes: {
      [SERVICE_ATTRIBUTE]: 'runner',
      'flowmesh.run.id': runId,
      'flowmesh.workflow.id': workflowId,
      'flowmesh.run.trigger': trigger,
    },
  };
}

/** The run a start of `target` writes: what the request and the target say, and what the start decided. */
function newRunOf(
  principal: Principal,
  request: StartRunRequest,
  target: ResolvedTarget,
  decided: Pick<NewRun, 'id' | 'triggerNodeId' | 'createdAt' | 'traceParent' | 'errorOfRunId' | 'flow'> & {
    key: Omit<IdempotentStart, 'workflowId'> | null;
  },
): NewRun {
  const { key, ...run } = decided;
  return {
    ...run,
    organizationId: principal.organizationId,
    workflowId: target.workflowId,
    workflowName: target.workflowName,
    projectId: target.projectId,
    version: target.version,
    trigger: request.trigger,
    createdBy: principal.userId,
    principal,
    input: request.input,
    diagram: target.diagram,
    timeZone: target.timeZone,
    idempotencyKey: key?.key ?? null,
    idempotencyFingerprint: key?.fingerprint ?? null,
    triggerOutput: TriggerExecutor.outputFor(request.input),
    rerunOf: null,
  };
}

/** What a start the runner makes on its own adds to the request. */
export interface StartOptions {
  /**
   * The run is its workflow's error workflow handling this failed run (docs/workflows.md, "Error
   * workflows"): it is marked so, and starts from `errorWorkflowTrigger`'s choice.
   */
  errorOfRunId?: string;
}

/** A start with an idempotency key: the key, and the request it stands for. */
interface IdempotentStart {
  key: string;
  workflowId: string;
  fingerprint: string;
}

function keyOfOtherWorkflow(): DomainException {
  return new DomainException(
    'idempotency_key_reused',
    'This Idempotency-Key started a run of another workflow in the last 24 hours; send a new key.',
    { reason: 'other_workflow' },
  );
}

/** The run a key already names, answered again for the same request and refused for any other. */
function replayOf(earlier: KeyHolder, start: IdempotentStart): StartRunReply<WorkflowRunDto> {
  switch (keyReuse({ workflowId: earlier.run.run.workflowId, fingerprint: earlier.fingerprint }, start)) {
    case 'replay':
      return { run: toWorkflowRunDto(earlier.run), replayed: true };
    case 'other_workflow':
      throw keyOfOtherWorkflow();
    case 'other_request':
      throw new DomainException(
        'idempotency_key_reused',
        'This Idempotency-Key started a run with a different body in the last 24 hours; send a new key.',
        { reason: 'other_request' },
      );
  }
}
