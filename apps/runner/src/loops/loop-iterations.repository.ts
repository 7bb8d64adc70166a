import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';

import type { DB } from '../runner.tables.js';

/** What a loop step's iterations from some index on have come to. */
export interface IterationWindow {
  /** One past the highest iteration started (iterations start in index order). */
  startedUpTo: number;
  /** Iterations not final yet. */
  unfinished: number;
  /** Iterations final, `complete` or not. */
  finished: number;
  /** The lowest iteration not final yet; null when every one is. */
  firstUnfinished: number | null;
  /** The lowest iteration that failed (`errored` or `terminated`), with its run and error. */
  firstFailure: { iteration: number; runId: string; error: string | null } | null;
}

const FINAL = sql<boolean>`status IN ('complete', 'errored', 'terminated')`;
const FAILED = sql<boolean>`status IN ('errored', 'terminated')`;

/** A loop step's place among its run's children: `coalesce(iteration, -1)`, as `runs_children_idx` has it. */
const place = sql<number>`coalesce(iteration, -1)`;

/**
 * What a `loop` step reads of its iterations at each look, and its stop when one fails. Each look
 * reads only the iterations from the lowest one not known final on (`runs_children_idx`), so a
 * 10,000-item loop does not read every iteration at every wake.
 */
@Injectable()
export class LoopIterations {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  async window(runId: string, loopId: string, from: number): Promise<IterationWindow> {
    const row = await this.db
      .selectFrom('runner.runs')
      .select([
        sql<number | null>`max(iteration)`.as('last'),
        sql<number>`(count(*) FILTER (WHERE NOT ${FINAL}))::int`.as('unfinished'),
        sql<number>`(count(*) FILTER (WHERE ${FINAL}))::int`.as('finished'),
        sql<number | null>`min(iteration) FILTER (WHERE NOT ${FINAL})`.as('firstUnfinished'),
        sql<number | null>`min(iteration) FILTER (WHERE ${FAILED})`.as('firstFailed'),
      ])
      .where('parent_run_id', '=', runId)
      .where('parent_node_id', '=', loopId)
      .where(place, '>=', from)
      .executeTakeFirstOrThrow();
    const firstFailure =
      row.firstFailed === null
        ? null
        : await this.db
            .selectFrom('runner.runs')
            .select(['iteration', 'id as runId', 'error'])
            .where('parent_run_id', '=', runId)
            .where('parent_node_id', '=', loopId)
            .where(place, '=', row.firstFailed)
            .executeTakeFirst();
    return {
      startedUpTo: row.last === null ? from : row.last + 1,
      unfinished: row.unfinished,
      finished: row.finished,
      firstUnfinished: row.firstUnfinished,
      firstFailure:
        firstFailure && row.firstFailed !== null
          ? { iteration: row.firstFailed, runId: firstFailure.runId, error: firstFailure.error }
          : null,
    };
  }

  /**
   * The loop `loopId` failed (or, with null, the run ended): its iterations not final yet (of every
   * loop of the run, with null), and every run under them, end `terminated` with `message`, their
   * running and waiting steps `error`, their lease tokens moved on so their holders stop at their next
   * write. Answers the runs it terminated, whose holders the caller tells.
   */
  terminateUnfinished(
    organizationId: string,
    runId: string,
    loopId: string | null,
    message: string,
  ): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const terminated = await trx
        .withRecursive('tree(id)', (cte) =>
          cte
            .selectFrom('runner.runs')
            .select('id')
            .where('parent_run_id', '=', runId)
            .where((eb) =>
              loopId === null ? eb('iteration', 'is not', null) : eb('parent_node_id', '=', loopId),
            )
            .where('organization_id', '=', organizationId)
            .unionAll(
              cte
                .selectFrom('runner.runs as r')
                .innerJoin('tree', 'tree.id', 'r.parent_run_id')
                .select('r.id'),
            ),
        )
        .updateTable('runner.runs')
        .set((eb) => ({
          status: 'terminated',
          error: message,
          finished_at: sql<Date>`now()`,
          wake_at: null,
          lease_expires_at: null,
          lease_token: eb('lease_token', '+', 1),
        }))
        .where('id', 'in', (eb) => eb.selectFrom('tree').select('tree.id'))
        .where(sql<boolean>`status IN ('queued', 'running', 'waiting', 'paused', 'waitingForPause')`)
        .returning('id')
        .execute();
      const ids = terminated.map((run) => run.id);
      if (ids.length > 0) {
        await trx
          .updateTable('runner.run_steps')
          .set((eb) => ({
            status: 'error',
            error: message,
            wake_at: null,
            output: null,
            ms: sql<number>`least(greatest(0, extract(epoch FROM now() - ${eb.ref('started_at')}) * 1000), 2147483647)::integer`,
          }))
          .where('run_id', 'in', ids)
          .where('status', 'in', ['running', 'waiting'])
          .where('compensation', '=', false)
          .execute();
      }
      return ids;
    });
  }
}
