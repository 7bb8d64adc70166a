import {
  type DatabaseMovesDto,
  type DatabaseShardRequest,
  type DatabaseShardsDto,
  DatabaseSubjects,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { ShardsService } from './shards.service.js';

@Controller()
export class ShardsHandler {
  constructor(private readonly shards: ShardsService) {}

  @Handles(DatabaseSubjects.adminShardsList)
  async list(): Promise<DatabaseShardsDto> {
    return { shards: await this.shards.list() };
  }

  @Handles(DatabaseSubjects.adminShardsDrain)
  drain({ shard }: DatabaseShardRequest): Promise<DatabaseMovesDto> {
    return this.shards.drain(shard);
  }

  @Handles(DatabaseSubjects.adminShardsRebalance)
  rebalance(): Promise<DatabaseMovesDto> {
    return this.shards.rebalance();
  }
}
