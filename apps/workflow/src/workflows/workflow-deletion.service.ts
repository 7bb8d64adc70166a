import type { AuditCaller } from '#persistence';
import { PeriodicTask } from '#common';
import { servicePrincipal, TERMINATE_BATCH_MAX } from '#contracts';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';

import { RunnerClient } from '../peers/runner.client.js';
import { WorkflowConfig } from '../workflow.config.js';
import { logger } from '../workflow.logger.js';
import { TriggerActivation } from './trigger-activation.js';
import { type DeletedWorkflow, WorkflowRepository } from './workflow.repository.js';

/**
 * Deletes workflows in two steps, so that no transaction waits on the runner. The mark, one short
 * statement, is the delete: from then on the workflow reads as workflow_not_found everywhere and its
 * schedules no longer fire. The purge follows: the workflow's triggers are turned off, the runner
 * terminates its runs (and refuses any run of it from then on, even one whose start read it before
 * the mark), and its rows are removed. Each step of the purge is idempotent, so one that fails (the
 * runner unreachable) or dies halfway is simply made again by the sweep every replica runs over
 * marked workflows whose lease ran out.
 */
@Injectable()
export class WorkflowDeletion implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sweeper: PeriodicTask;

  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly runner: RunnerClient,
    private readonly triggers: TriggerActivation,
    private readonly config: WorkflowConfig,
  ) {
    this.sweeper = new PeriodicTask(
      config.PURGE_INTERVAL_MS,
      () => this.sweep(),
      (error) => logger.warn({ err: error }, 'sweeping deleted workflows failed; trying again'),
    );
  }

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  /** Before the database and NATS connections close. */
  beforeApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /**
   * Marks the workflow deleted (false: there is no such workflow), then purges it, waiting for the
   * runner at most DELETE_WAIT_MS: what is not done by then the sweep finishes once the mark's lease
   * (PURGE_RETRY_MS) runs out. The delete stands either way.
   */
  async deleteOne(caller: AuditCaller & { organizationId: string }, workflowId: string): Promise<boolean> {
    const { organizationId } = caller;
    if (!(await this.workflows.markDeleted(organizationId, workflowId, this.config.PURGE_RETRY_MS, caller))) {
      return false;
    }
    try {
      await this.purge(organizationId, [workflowId], this.config.DELETE_WAIT_MS);
    } catch (error) {
      logger.warn({ err: error, workflowId }, 'deleted workflow not purged yet; the sweep will retry');
    }
    return true;
  }

  /**
   * Marks every workflow of a deleted project deleted, in one statement, and remembers the project so
   * no workflow is created in it any more. The sweep purges them (at its next pass), a batch of
   * workflows per request to the runner.
   */
  deleteProject(organizationId: string, projectId: string): Promise<number> {
    return this.workflows.markProjectDeleted(organizationId, projectId);
  }

  /** Purges every deleted workflow whose purge is due, a batch at a time. */
  async sweep(): Promise<void> {
    for (;;) {
      const claimed = await this.workflows.claimDeleted(TERMINATE_BATCH_MAX, this.config.PURGE_RETRY_MS);
      await Promise.all(
        [...byOrganization(claimed)].map(([organizationId, ids]) =>
          this.purge(organizationId, ids).catch((error: unknown) =>
            logger.warn(
              { err: error, organizationId, workflows: ids.length },
              'deleted workflows not purged; the sweep will retry',
            ),
          ),
        ),
      );
      if (claimed.length < TERMINATE_BATCH_MAX) return;
    }
  }

  private async purge(organizationId: string, ids: string[], timeoutMs?: number): Promise<void> {
    const principal = servicePrincipal(organizationId);
    await Promise.all(ids.map((id) => this.triggers.deactivate(principal, id, { deleted: true })));
    await this.runner.terminateRunsOf(principal, ids, timeoutMs);
    await this.workflows.purge(ids);
  }
}

function byOrganization(workflows: readonly DeletedWorkflow[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { id, organizationId } of workflows) {
    const ids = groups.get(organizationId);
    if (ids) ids.push(id);
    else groups.set(organizationId, [id]);
  }
  return groups;
}
