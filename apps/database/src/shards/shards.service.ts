import { DomainException } from '#common';
import type { DatabaseMovesDto, DatabaseShardDto } from '#contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';

import { LOGGER, QUERY_SETTINGS, type QuerySettings } from '../database.tokens.js';
import { DatabaseRepository } from '../databases/database.repository.js';
import type { MovedDto } from './move.messages.js';
import { type PlannedMove, planDrain, planRebalance } from './shard-assignment.util.js';
import { ShardClient } from './shard.client.js';
import type { ShardRecord } from './shard.mapper.js';
import { ShardRepository } from './shard.repository.js';
import { SHARD_LIVE_MS } from './shard-registry.service.js';

/** Past the batches' deadline, what one move may take to copy and verify its file. */
const MOVE_TRANSFER_MS = 300_000;

function toShardDto(row: ShardRecord): DatabaseShardDto {
  return {
    shard: row.shard,
    state: row.state,
    live: row.live,
    heartbeatAt: row.heartbeatAt.toISOString(),
    databases: row.databases,
  };
}

/**
 * The operator's scale changes (docs/databases.md, "Scaling out"): drain a shard before it goes,
 * rebalance after one arrives. Whichever replica receives the command plans the moves from the
 * registry and asks each database's shard to move it, one database at a time. No lock is held:
 * each move claims its database on the row, so two commands at once cannot move one database twice.
 */
@Injectable()
export class ShardsService {
  constructor(
    private readonly shards: ShardRepository,
    private readonly databases: DatabaseRepository,
    private readonly peers: ShardClient,
    @Inject(QUERY_SETTINGS) private readonly settings: QuerySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async list(): Promise<DatabaseShardDto[]> {
    return (await this.shards.loads(SHARD_LIVE_MS)).map(toShardDto);
  }

  /**
   * The shard takes no new databases from now on, and each of its databases moves to another. Fails
   * (with what moved and what did not) unless the shard ends up empty, so a scale-down chained after
   * it (`drain && kubectl scale`) never removes a replica that still holds databases.
   */
  async drain(shard: number): Promise<DatabaseMovesDto> {
    if (!(await this.shards.setState(shard, 'leaving'))) {
      throw DomainException.invalidRequest([{ path: 'shard', message: `shard ${shard} is not registered` }]);
    }
    const loads = await this.shards.loads(SHARD_LIVE_MS);
    const held = (await this.databases.onShard(shard)).map((row) => row.id);
    const plan = planDrain(loads, shard, held);
    if (held.length > 0 && plan.length === 0) {
      throw new DomainException('service_unavailable', 'No other live active shard can take the databases.');
    }
    const result = await this.carryOut(plan);
    const left = result.shards.find((load) => load.shard === shard)?.databases ?? 0;
    if (left > 0) {
      throw new DomainException(
        'service_unavailable',
        `Shard ${shard} still holds ${left} database(s); run the drain again before removing it.`,
        { ...result },
      );
    }
    return result;
  }

  /** Every live replica takes databases again (after a scale-up), and the databases even out. */
  async rebalance(): Promise<DatabaseMovesDto> {
    await this.shards.activateLive(SHARD_LIVE_MS);
    const loads = await this.shards.loads(SHARD_LIVE_MS);
    const held = new Map<number, string[]>();
    for (const load of loads) {
      if (load.live && load.state === 'active' && load.databases > 0) {
        held.set(
          load.shard,
          (await this.databases.onShard(load.shard)).map((row) => row.id),
        );
      }
    }
    return this.carryOut(planRebalance(loads, (shard) => held.get(shard) ?? []));
  }

  private async carryOut(plan: PlannedMove[]): Promise<DatabaseMovesDto> {
    const result: DatabaseMovesDto = { moved: [], failed: [], shards: [] };
    for (const move of plan) {
      try {
        const { bytes, ms } = await this.peers.request<MovedDto>(
          move.from,
          'move',
          { principal: null, data: { databaseId: move.databaseId, target: move.to } },
          this.settings.batchTimeoutMs + MOVE_TRANSFER_MS,
        );
        result.moved.push({ ...move, bytes, ms });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.logger.warn({ ...move, err: error }, 'a planned database move failed');
        result.failed.push({ ...move, message });
      }
    }
    result.shards = await this.list();
    return result;
  }
}
