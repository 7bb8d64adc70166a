import { PeriodicTask } from '#common';
import { type Principal, servicePrincipal, WorkflowSubjects } from '#contracts';
import { RpcClient } from '#nats';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';

import { CatalogConfig } from '../catalog.config.js';
import { logger } from '../catalog.logger.js';
import { ProjectRepository } from './project.repository.js';

/** Deleted projects one sweep pass takes. */
const BATCH = 50;

/**
 * Deletes projects in two steps, so that no transaction waits on the workflow service. The mark,
 * one short transaction, is the delete: from then on the project reads as project_not_found and no
 * longer counts against the plan. Then workflow takes the project's workflows over
 * (`workflow.workflows.delete-for-project`: it marks them all deleted in one statement, refuses new
 * ones in the project, and purges them with their runs on its own, durably), and only then is the
 * project's row removed. Asking workflow again is harmless, so an attempt that fails (workflow
 * unreachable) or dies halfway is made again by the sweep every replica runs over marked projects
 * whose lease ran out.
 */
@Injectable()
export class ProjectDeletion implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sweeper: PeriodicTask;

  constructor(
    private readonly projects: ProjectRepository,
    private readonly rpc: RpcClient,
    private readonly config: CatalogConfig,
  ) {
    this.sweeper = new PeriodicTask(
      config.PURGE_INTERVAL_MS,
      () => this.sweep(),
      (error) => logger.warn({ err: error }, 'sweeping deleted projects failed; trying again'),
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
   * Marks the project deleted (false: there is no such project), then finishes the delete, waiting
   * for workflow at most DELETE_WAIT_MS: what is not done by then the sweep finishes once the mark's
   * lease (PURGE_RETRY_MS) runs out. The delete stands either way.
   */
  async deleteOne(caller: Principal, projectId: string): Promise<boolean> {
    const { organizationId } = caller;
    if (!(await this.projects.markDeleted(organizationId, projectId, this.config.PURGE_RETRY_MS, caller))) {
      return false;
    }
    try {
      await this.finish(organizationId, projectId, this.config.DELETE_WAIT_MS);
    } catch (error) {
      logger.warn({ err: error, projectId }, 'deleted project not finished yet; the sweep will retry');
    }
    return true;
  }

  /** Finishes every deleted project whose attempt is due. */
  async sweep(): Promise<void> {
    for (;;) {
      const claimed = await this.projects.claimDeleted(BATCH, this.config.PURGE_RETRY_MS);
      await Promise.all(
        claimed.map(({ id, organizationId }) =>
          this.finish(organizationId, id).catch((error: unknown) =>
            logger.warn({ err: error, projectId: id }, 'deleted project not finished; the sweep will retry'),
          ),
        ),
      );
      if (claimed.length < BATCH) return;
    }
  }

  private async finish(organizationId: string, projectId: string, timeoutMs?: number): Promise<void> {
    await this.rpc.request(
      WorkflowSubjects.deleteForProject,
      servicePrincipal(organizationId),
      { projectId },
      timeoutMs,
    );
    await this.projects.purge(projectId);
  }
}
