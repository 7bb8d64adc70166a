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
/** How far a database's size may move after a batch before its row is written again. */
const RECORD_STEP_BYTES = 1024 * 1024;

@Injectable()
export class StorageService {
  /** What this replica last wrote on each database's row. */
  private readonly recorded = new Map<string, number>();

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

  /**
   * Writes what a database holds on its row. After a batch, a size within 1 MiB of the one this
   * replica wrote last is not written again (most small writes): the row is then that close. When
   * the database opens or closes it is always written, so a database that came back from another
   * shard starts from its own row. A measurement that cannot be written is only late: the next one
   * writes it.
   */
  async record(
    databaseId: string,
    bytes: number,
    { always = false }: { always?: boolean } = {},
  ): Promise<void> {
    const last = this.recorded.get(databaseId);
    if (!always && last !== undefined && Math.abs(bytes - last) < RECORD_STEP_BYTES) return;
    try {
      await this.databases.recordStorage(databaseId, bytes);
      this.recorded.set(databaseId, bytes);
    } catch (error) {
      this.logger.warn({ err: error, databaseId }, "recording a database's storage failed");
    }
  }
}
