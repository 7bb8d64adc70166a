import { DomainException } from '#common';
import {
  type CancelRunDto,
  FINAL_RUN_STATUSES,
  type Principal,
  type RerunRunDto,
  type WorkflowRunDto,
} from '#contracts';
import { isId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { ChildWakes } from '../children/child-wakes.service.js';
import type { StoredRunStatus } from '../engine/run-state.js';
import { RunJobs } from '../queue/run-jobs.service.js';
import { RunChanges } from '../runs/run-changes.service.js';
import { type ControlMove, RunControlRepository } from '../runs/run-control.repository.js';
import { toWorkflowRunDto } from '../runs/run-dto.util.js';
import { RunRepository } from '../runs/run.repository.js';
import { RunStarter } from '../start/run-starter.service.js';
import { runCancelled } from '../metrics/run.metrics.js';
import { rerunPlan } from './rerun-plan.util.js';

/** Who asked, as a cancelled step's message names them. */
function actorOf(principal: Principal): string {
  if (principal.userId !== null) return `member ${principal.userId}`;
  if (principal.keyId !== null) return `API key ${principal.keyId}`;
  return 'the service';
}

/** The error a cancel leaves on the run and on every step it stopped. */
export function cancelMessage(principal: Principal, reason: string | undefined): string {
  const by = `Cancelled by ${actorOf(principal)}`;
  return reason === undefined || reason.trim() === '' ? `${by}.` : `${by}: ${reason}`;
}

/**
 * Run control: cancel, pause, resume and rerun (docs/runs.md, "Run control"). Each move is one
 * statement on the run row, committed before anyone is told, so a runner or service that misses the
 * notice is still fenced off by the database; the job a move queues is published after it commits.
 */
@Injectable()
export class RunControlService {
  constructor(
    private readonly runs: RunRepository,
    private readonly control: RunControlRepository,
    private readonly changes: RunChanges,
    private readonly jobs: RunJobs,
    private readonly starter: RunStarter,
    private readonly childWakes: ChildWakes,
  ) {}

  async cancel(principal: Principal, id: string, body: CancelRunDto): Promise<WorkflowRunDto> {
    const runId = this.known(id);
    const message = cancelMessage(principal, body.reason);
    const move = await this.control.cancel(
      principal.organizationId,
      runId,
      message,
      body.rollback === true,
      principal,
      body.reason,
    );
    await this.refuseUnless(
      move,
      runId,
      'run_not_active',
      (status) => `The run is ${status}: there is nothing to cancel.`,
    );
    this.changes.cancelled({ runId, organizationId: principal.organizationId, message });
    this.changes.changed(runId, move.after ?? 'terminated');
    for (const descendant of move.descendants) {
      this.changes.cancelled({ runId: descendant.runId, organizationId: principal.organizationId, message });
      this.changes.changed(descendant.runId, descendant.status);
      runCancelled();
    }
    if (move.after === 'terminated') {
      runCancelled();
      // A child cancelled on its own fails its parent's step (the parent is not cancelled).
      if (move.parent) {
        this.childWakes.ended({
          id: runId,
          organizationId: principal.organizationId,
          parentRunId: move.parent.runId,
          parentNodeId: move.parent.nodeId,
        });
      }
    }
    if (move.job) await this.jobs.publishSoon(move.job);
    return this.read(principal, runId);
  }

  async pause(principal: Principal, id: string): Promise<WorkflowRunDto> {
    const runId = this.known(id);
    const move = await this.control.pause(principal.organizationId, runId, principal);
    if (move.before === null) throw DomainException.notFound('run', runId);
    // Pausing a run that is pausing or paused already (perhaps by a pause it waited for) asks for
    // what is so.
    if (move.after === null) {
      const found = await this.read(principal, runId);
      if (found.status === 'paused' || found.status === 'waitingForPause') return found;
    }
    await this.refuseUnless(
      move,
      runId,
      'run_not_active',
      (status) => `The run is ${status}: it cannot be paused.`,
    );
    if (move.after === 'waitingForPause') this.changes.pauseRequested(runId);
    this.changes.changed(runId, move.after ?? 'paused');
    for (const descendant of move.descendants) {
      if (descendant.status === 'waitingForPause') this.changes.pauseRequested(descendant.runId);
      this.changes.changed(descendant.runId, descendant.status);
    }
    return this.read(principal, runId);
  }

  async resume(principal: Principal, id: string): Promise<WorkflowRunDto> {
    const runId = this.known(id);
    const move = await this.control.resume(principal.organizationId, runId, principal);
    await this.refuseUnless(move, runId, 'run_not_paused', (status) => `The run is ${status}, not paused.`);
    this.changes.changed(runId, 'queued');
    for (const descendant of move.descendants) this.changes.changed(descendant.runId, descendant.status);
    await Promise.all(
      [move.job, ...move.descendants.map((descendant) => descendant.job)]
        .filter((job) => job !== null)
        .map((job) => this.jobs.publishSoon(job)),
    );
    return this.read(principal, runId);
  }

  async rerun(principal: Principal, id: string, body: RerunRunDto): Promise<WorkflowRunDto> {
    const runId = this.known(id);
    const old = await this.runs.find(principal.organizationId, runId);
    if (!old) throw DomainException.notFound('run', id);
    if (!(FINAL_RUN_STATUSES as readonly string[]).includes(old.run.status)) {
      throw new DomainException(
        'run_not_final',
        `The run is ${old.run.status}: only a run that has ended can be rerun.`,
      );
    }
    const plan = rerunPlan(old, body);
    return this.starter.startRerun(principal, old.run, old.run.triggerNodeId ?? '', plan);
  }

  private known(id: string): string {
    if (!isId(id)) throw DomainException.notFound('run', id);
    return id;
  }

  /**
   * A move that did not apply is refused with the run's status now: the status the move read first
   * can be older, when the move waited for another one (a second cancel) that changed it.
   */
  private async refuseUnless(
    move: ControlMove,
    runId: string,
    code: 'run_not_active' | 'run_not_paused',
    message: (status: StoredRunStatus) => string,
  ): Promise<void> {
    if (move.before === null) throw DomainException.notFound('run', runId);
    if (move.after !== null) return;
    const status = (await this.runs.holdOf(runId))?.status ?? move.before;
    throw new DomainException(code, message(status), { status });
  }

  private async read(principal: Principal, runId: string): Promise<WorkflowRunDto> {
    const found = await this.runs.find(principal.organizationId, runId);
    if (!found) throw DomainException.notFound('run', runId);
    return toWorkflowRunDto(found);
  }
}
