import type { EventOutcome, ReplayCandidatesRequest } from '#contracts';
import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../events.tables.js';
import {
  type DecidedOutcome,
  outcomeColumns,
  type OutcomeRecord,
  toOutcomeRecord,
  type UndecidedOutcome,
} from './event-outcome.mapper.js';

interface OutcomeColumns {
  workflow_id: string;
  trigger_node_id: string;
  outcome: EventOutcome | null;
  run_id: string | null;
  error: string | null;
}

/** The outcomes as rows `o`, one parameter per column however many there are. */
function unnestOutcomes(outcomes: Array<DecidedOutcome | UndecidedOutcome>) {
  const columns = outcomeColumns(outcomes);
  return sql<OutcomeColumns>`unnest(${columns.workflowIds}::text[], ${columns.triggerNodeIds}::text[],
    ${columns.outcomes}::text[], ${columns.runIds}::text[], ${columns.errors}::text[])`.as<'o'>(
    sql`o(workflow_id, trigger_node_id, outcome, run_id, error)`,
  );
}

/** What each trigger an event reached did: recorded by its fan-outs and replays. */
@Injectable()
export class EventOutcomeRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * The first fan-out of an event records, in one statement, who it reached and what each did (an
   * undecided one pending), and finishes the event when nothing is pending. False when another
   * fan-out recorded them first: then nothing was written.
   */
  async recordFirstFanOut(
    eventId: string,
    organizationId: string,
    outcomes: Array<DecidedOutcome | UndecidedOutcome>,
  ): Promise<boolean> {
    const finished = outcomes.every((outcome) => outcome.outcome !== null);
    const rows = await this.db
      .with('claimed', (db) =>
        db
          .updateTable('events.app_events')
          .set({ listeners_resolved: true, fanned_out_at: finished ? sql<Date>`now()` : null })
          .where('id', '=', eventId)
          .where('listeners_resolved', '=', false)
          .returning('id'),
      )
      .with('recorded', (db) =>
        db
          .insertInto('events.event_outcomes')
          .columns([
            'event_id',
            'workflow_id',
            'trigger_node_id',
            'organization_id',
            'outcome',
            'run_id',
            'error',
          ])
          .expression((eb) =>
            eb
              .selectFrom(['claimed', unnestOutcomes(outcomes)])
              .select([
                'claimed.id',
                'o.workflow_id',
                'o.trigger_node_id',
                eb.val(organizationId).as('organization_id'),
                'o.outcome',
                'o.run_id',
                'o.error',
              ]),
          )
          .onConflict((oc) => oc.doNothing()),
      )
      .selectFrom('claimed')
      .select('id')
      .execute();
    return rows.length === 1;
  }

  /**
   * Records decided outcomes of an event whose listeners were recorded before, and finishes the
   * event when none is left pending. A trigger that started a run keeps that outcome: a replay or a
   * second fan-out never overwrites it.
   */
  async recordDecided(eventId: string, organizationId: string, decided: DecidedOutcome[]): Promise<void> {
    const columns = outcomeColumns(decided);
    await this.db
      .with('recorded', (db) =>
        db
          .insertInto('events.event_outcomes')
          .columns([
            'event_id',
            'workflow_id',
            'trigger_node_id',
            'organization_id',
            'outcome',
            'run_id',
            'error',
            'at',
          ])
          .expression((eb) =>
            eb
              .selectFrom(unnestOutcomes(decided))
              .select([
                eb.val(eventId).as('event_id'),
                'o.workflow_id',
                'o.trigger_node_id',
                eb.val(organizationId).as('organization_id'),
                'o.outcome',
                'o.run_id',
                'o.error',
                sql<Date>`now()`.as('at'),
              ]),
          )
          .onConflict((oc) =>
            oc
              .columns(['event_id', 'workflow_id', 'trigger_node_id'])
              .doUpdateSet((eb) => ({
                outcome: eb.ref('excluded.outcome'),
                run_id: eb.ref('excluded.run_id'),
                error: eb.ref('excluded.error'),
                at: eb.ref('excluded.at'),
              }))
              .where('events.event_outcomes.outcome', 'is distinct from', 'started'),
          ),
      )
      .updateTable('events.app_events')
      .set({ fanned_out_at: sql<Date>`now()` })
      .where('id', '=', eventId)
      .where('fanned_out_at', 'is', null)
      .where('listeners_resolved', '=', true)
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('events.event_outcomes as p')
              .select((eb) => eb.lit(1).as('pending'))
              .where('p.event_id', '=', eventId)
              .where('p.outcome', 'is', null)
              .where(({ eb, refTuple, selectFrom }) =>
                eb(
                  refTuple('p.workflow_id', 'p.trigger_node_id'),
                  'not in',
                  selectFrom(
                    sql<{
                      w: string;
                      n: string;
                    }>`unnest(${columns.workflowIds}::text[], ${columns.triggerNodeIds}::text[])`.as<'d'>(
                      sql`d(w, n)`,
                    ),
                  )
                    .select(['d.w', 'd.n'])
                    .$asTuple('w', 'n'),
                ),
              ),
          ),
        ),
      )
      .execute();
  }

  async pendingOutcomes(eventId: string): Promise<OutcomeRecord[]> {
    const rows = await this.db
      .selectFrom('events.event_outcomes')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('outcome', 'is', null)
      .execute();
    return rows.map(toOutcomeRecord);
  }

  async outcomeOf(eventId: string, workflowId: string, triggerNodeId: string): Promise<OutcomeRecord | null> {
    const row = await this.db
      .selectFrom('events.event_outcomes')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('workflow_id', '=', workflowId)
      .where('trigger_node_id', '=', triggerNodeId)
      .executeTakeFirst();
    return row ? toOutcomeRecord(row) : null;
  }

  /** Whether the event reached the workflow at all (it has an outcome row for it). */
  async reached(eventId: string, workflowId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('events.event_outcomes')
      .select((eb) => eb.lit(1).as('reached'))
      .where('event_id', '=', eventId)
      .where('workflow_id', '=', workflowId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The events a bulk replay matches for one trigger, newest first, a page at a time: those that
   * reached the trigger (with `outcome`, only those it decided that way), received in
   * `[after, before)`. Walks `event_outcomes_workflow_idx`.
   */
  async replayCandidates(
    organizationId: string,
    { workflowId, triggerNodeId, outcome, after, before, beforeId, limit }: ReplayCandidatesRequest,
  ): Promise<string[]> {
    let query = this.db
      .selectFrom('events.event_outcomes as o')
      .innerJoin('events.app_events as e', 'e.id', 'o.event_id')
      .select('o.event_id as id')
      .where('o.organization_id', '=', organizationId)
      .where('o.workflow_id', '=', workflowId)
      .where('o.trigger_node_id', '=', triggerNodeId);
    if (outcome !== undefined) query = query.where('o.outcome', '=', outcome);
    if (after !== undefined) query = query.where('e.received_at', '>=', new Date(after));
    if (before !== undefined) query = query.where('e.received_at', '<', new Date(before));
    if (beforeId !== undefined) query = query.where('o.event_id', '<', beforeId);
    const rows = await query.orderBy('o.event_id', 'desc').limit(limit).execute();
    return rows.map((row) => row.id);
  }
}
