import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';

import type { DB } from '../runner.tables.js';
import type { EndedStatus } from './run-ending.js';

/** An ended run claimed for its handlers. */
export interface ClaimedEnding {
  runId: string;
  organizationId: string;
  status: EndedStatus;
  handled: string[];
  /** Counting this one. */
  attempts: number;
}

/** The outbox of ended runs (migration `run-endings`): claimed in turns, kept until handled. */
@Injectable()
export class RunEndingRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Takes up to `limit` due endings for `claimMs`: whoever claimed one and died leaves it to be
   * claimed again once that runs out. `FOR UPDATE SKIP LOCKED` shares them among the replicas.
   */
  async claim(limit: number, claimMs: number): Promise<ClaimedEnding[]> {
    return this.db
      .with('due', (db) =>
        db
          .selectFrom('runner.run_endings')
          .select('run_id')
          .where('next_attempt_at', '<=', sql<Date>`now()`)
          .orderBy('next_attempt_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .updateTable('runner.run_endings as e')
      .from('due')
      .innerJoin('runner.runs as r', 'r.id', 'due.run_id')
      .set((eb) => ({
        attempts: eb('e.attempts', '+', 1),
        next_attempt_at: sql<Date>`now() + make_interval(secs => ${claimMs} / 1000.0)`,
      }))
      .whereRef('e.run_id', '=', 'due.run_id')
      .returning([
        'e.run_id as runId',
        'r.organization_id as organizationId',
        sql<EndedStatus>`e.status`.as('status'),
        'e.handled',
        'e.attempts',
      ])
      .execute();
  }

  async done(runId: string): Promise<void> {
    await this.db.deleteFrom('runner.run_endings').where('run_id', '=', runId).execute();
  }

  /** Some handler failed: the others' success is kept, and the ending is due again after `retryMs`. */
  async retryLater(runId: string, handled: readonly string[], error: string, retryMs: number): Promise<void> {
    await this.db
      .updateTable('runner.run_endings')
      .set({
        handled: [...handled],
        last_error: error,
        next_attempt_at: sql<Date>`now() + make_interval(secs => ${retryMs} / 1000.0)`,
      })
      .where('run_id', '=', runId)
      .execute();
  }
}
