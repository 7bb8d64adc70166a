import type { Principal } from '#contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { LOGGER } from '../database.tokens.js';
import type { StorageBudget } from '../engine/batch-runner.js';
import { DatabaseRepository } from './database.repository.js';
import { PlanClient } from './plan.client.js';
import { storageBudget } from './storage-budget.util.js';

/**
 * The plan's storage limits (docs/databases.md, "Storage"): what each database holds is written on
 * its row whenever its shard measures it, so the organization's total adds up databases on every
 * shard; a writing batch's budget is read from the plan and those rows.
 */
@Injectable()
export class StorageService {
  constructor(
    private readonly databases: DatabaseRepository,
    private readonly plans: PlanClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Asked while a batch runs but before it takes its database's write lock: no lock is held meanwhile. */
  async budget(principal: Principal, databaseId: string): Promise<StorageBudget> {
    const [limits, others] = await Promise.all([
      this.plans.limits(principal),
      this.databases.storageOfOthers(principal.organizationId, databaseId),
    ]);
    return storageBudget(limits.databaseStorage, limits.storage, others);
  }

  /** A measurement that cannot be written is only late: the next one writes it. */
  async record(databaseId: string, bytes: number): Promise<void> {
    try {
      await this.databases.recordStorage(databaseId, bytes);
    } catch (error) {
      this.logger.warn({ err: error, databaseId }, "recording a database's storage failed");
    }
  }
}
