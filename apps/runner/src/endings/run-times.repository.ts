import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../runner.tables.js';

/** When a run started and ended, which the engine's run record does not carry. */
@Injectable()
export class RunTimesRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Null for a run that is gone. A run that never started counts as started when it was created. */
  async of(runId: string): Promise<{ startedAt: Date; finishedAt: Date | null } | null> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select(['created_at', 'started_at', 'finished_at'])
      .where('id', '=', runId)
      .executeTakeFirst();
    return row ? { startedAt: row.started_at ?? row.created_at, finishedAt: row.finished_at } : null;
  }
}
