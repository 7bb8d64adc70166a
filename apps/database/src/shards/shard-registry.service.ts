import { PeriodicTask } from '#common';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';

import { LOGGER, SHARD } from '../database.tokens.js';
import { DatabaseRepository } from '../databases/database.repository.js';
import { DatabaseFiles } from '../engine/database-files.js';
import { ShardRepository } from './shard.repository.js';

/** How often a replica writes its heartbeat. */
export const SHARD_HEARTBEAT_MS = 5_000;
/** A replica not heard from for this long takes no new databases and no moves. */
export const SHARD_LIVE_MS = 3 * SHARD_HEARTBEAT_MS;

/**
 * Registers this replica in `database.shards` when it starts and keeps its heartbeat fresh. Before
 * the replica serves anything it also puts its volume in order after a move that a crash cut short
 * (docs/databases.md, "Moving a database"): the database's row says which shard holds it, and
 * copies elsewhere go.
 */
@Injectable()
export class ShardRegistry implements OnModuleInit, OnApplicationShutdown {
  private readonly heartbeat: PeriodicTask;

  constructor(
    private readonly shards: ShardRepository,
    private readonly databases: DatabaseRepository,
    private readonly files: DatabaseFiles,
    @Inject(SHARD) private readonly shard: number,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.heartbeat = new PeriodicTask(
      SHARD_HEARTBEAT_MS,
      () => this.shards.heartbeat(this.shard),
      (error) => this.logger.warn({ err: error }, 'writing the shard heartbeat failed'),
    );
  }

  async onModuleInit(): Promise<void> {
    await this.files.claim(this.shard);
    await this.tidyVolume();
    await this.shards.register(this.shard);
    this.heartbeat.start();
    this.logger.info({ shard: this.shard }, 'database shard registered');
  }

  async onApplicationShutdown(): Promise<void> {
    // The row stays: a restart must not move databases, and its state (active or leaving) is kept.
    await this.heartbeat.stop();
  }

  /**
   * Nothing runs on this volume yet, so no move involving it is in flight here:
   * - an incoming copy was never adopted: removed;
   * - a file whose row names another shard was moved away (the crash came before the source removed
   *   it), or is an adopted copy whose move did not commit: removed;
   * - a file of this shard whose row still names a move: the move is given up, unless its target
   *   committed it meanwhile (then the file goes);
   * - a file without a row is left and logged: a deleted database's leftovers, or a metadata
   *   database that is not this volume's, which must not cost anyone their data.
   */
  private async tidyVolume(): Promise<void> {
    const stored = await this.files.stored();
    const placements = new Map(
      (await this.databases.placements(stored.map((file) => file.databaseId))).map((row) => [row.id, row]),
    );
    for (const file of stored) {
      const row = placements.get(file.databaseId);
      if (file.incoming) {
        await this.remove(file.path, 'an incoming copy that was never adopted');
        continue;
      }
      if (!row) {
        this.logger.warn({ path: file.path }, 'a database file without metadata is left in place');
        continue;
      }
      if (row.shard === this.shard && row.moveId !== null) {
        if (await this.databases.abortMove(row.id, this.shard, row.moveId)) {
          this.logger.info({ databaseId: row.id }, 'gave up a move cut short by a restart');
          continue;
        }
        const now = await this.databases.placement(row.id);
        if (!now || now.shard === this.shard) continue;
        row.shard = now.shard;
      }
      if (row.shard !== this.shard) {
        await this.remove(file.path, `a copy of a database shard ${row.shard} holds`);
      }
    }
  }

  private async remove(path: string, why: string): Promise<void> {
    this.logger.info({ path }, `removing ${why}`);
    await this.files.removeAt(path);
  }
}
