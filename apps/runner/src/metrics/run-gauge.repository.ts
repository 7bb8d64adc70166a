import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';

import type { DB } from '../runner.tables.js';
import type { HeldBy } from '../start/run-flow.js';

/** The statuses of a run not yet finished, each with a partial index of its own. */
export const UNFINISHED_STATUSES = [
  'queued',
  'running',
  'waiting',
  'paused',
  'waitingForPause',
  'rollingBack',
] as const;

export interface UnfinishedRuns {
  counts: Record<(typeof UNFINISHED_STATUSES)[number], number>;
  /** When the oldest queued run was created; null when none is queued. */
  oldestQueuedAt: Date | null;
}

/** Held runs of one workflow at one gate. */
export interface HeldCount {
  workflowId: string;
  gate: HeldBy;
  count: number;
}

@Injectable()
export class RunGaugeRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * One count per status, each a separate branch so that Postgres reads it from that status's
   * partial index (`runs_queued_idx`, `runs_waiting_idx`, `runs_running_idx`, `runs_held_idx`,
   * `runs_paused_idx`) rather than the whole table.
   */
  async unfinished(): Promise<UnfinishedRuns> {
    const branches = UNFINISHED_STATUSES.map(
      (status) =>
        sql`SELECT ${status}::text AS status, count(*)::int AS count, min(created_at) AS oldest
            FROM runner.runs WHERE status = ${status}`,
    );
    const { rows } = await sql<{ status: string; count: number; oldest: Date | null }>`${sql.join(
      branches,
      sql` UNION ALL `,
    )}`.execute(this.db);
    const counts = Object.fromEntries(
      UNFINISHED_STATUSES.map((status) => [status, 0]),
    ) as UnfinishedRuns['counts'];
    let oldestQueuedAt: Date | null = null;
    for (const row of rows) {
      counts[row.status as keyof UnfinishedRuns['counts']] = row.count;
      if (row.status === 'queued') oldestQueuedAt = row.oldest;
    }
    return { counts, oldestQueuedAt };
  }

  /** Held runs per workflow and gate (`runs_held_organization_idx`, whose predicate this repeats). */
  held(): Promise<HeldCount[]> {
    return this.db
      .selectFrom('runner.runs')
      .select([
        'workflow_id as workflowId',
        sql<HeldBy>`held_by`.as('gate'),
        sql<number>`count(*)::integer`.as('count'),
      ])
      .where('held_by', 'is not', null)
      .where('status', '=', sql.lit('queued'))
      .groupBy(['workflow_id', 'held_by'])
      .execute();
  }
}
