import type { Page } from '#common';
import { EVENT_RETENTION_DAYS, type EventOutcome } from '#contracts';
import { paginate, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import { type Binding, type BindingRow, toBinding } from '../subscriptions/binding.repository.js';
import { AppEventEntity } from './app-event.entity.js';

export interface NewAppEvent {
  id: string;
  organizationId: string;
  connectionId: string;
  trigger: string;
  deliveryId: string;
  payload: string;
  firedAt: Date;
}

/** One trigger an event reached, and what it did (null while its fan-out has not decided yet). */
export interface OutcomeRow {
  eventId: string;
  workflowId: string;
  triggerNodeId: string;
  outcome: EventOutcome | null;
  runId: string | null;
  error: string | null;
  at: Date;
}

interface RawOutcome {
  event_id: string;
  workflow_id: string;
  trigger_node_id: string;
  outcome: EventOutcome | null;
  run_id: string | null;
  error: string | null;
  at: Date;
}

const toOutcome = (row: RawOutcome): OutcomeRow => ({
  eventId: row.event_id,
  workflowId: row.workflow_id,
  triggerNodeId: row.trigger_node_id,
  outcome: row.outcome,
  runId: row.run_id,
  error: row.error,
  at: row.at,
});

export interface Listener {
  workflowId: string;
  triggerNodeId: string;
}

export interface DecidedOutcome extends Listener {
  outcome: EventOutcome;
  runId?: string | null;
  error?: string | null;
}

/** A listener whose outcome could not be decided yet (the runner did not answer): it stays pending. */
export interface UndecidedOutcome extends Listener {
  outcome: null;
}

/** What a fan-out reads in one go: the event, and every trigger bound to its connection and trigger. */
export interface EventToFanOut extends Pick<
  AppEventEntity,
  'id' | 'organizationId' | 'connectionId' | 'trigger' | 'payload'
> {
  listenersResolved: boolean;
  bindings: Binding[];
}

const outcomeColumns = (outcomes: Array<DecidedOutcome | UndecidedOutcome>) => [
  outcomes.map((outcome) => outcome.workflowId),
  outcomes.map((outcome) => outcome.triggerNodeId),
  outcomes.map((outcome) => outcome.outcome),
  outcomes.map((outcome) => (outcome.outcome === null ? null : (outcome.runId ?? null))),
  outcomes.map((outcome) => (outcome.outcome === null ? null : (outcome.error ?? null))),
];

@Injectable()
export class AppEventRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(AppEventEntity);
  }

  /** Stores a delivery; false when this connection already has one with the same delivery id. */
  async insert(event: NewAppEvent): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO events.app_events (id, organization_id, connection_id, trigger, delivery_id, payload, fired_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (connection_id, delivery_id) DO NOTHING
       RETURNING id`,
      [
        event.id,
        event.organizationId,
        event.connectionId,
        event.trigger,
        event.deliveryId,
        event.payload,
        event.firedAt,
      ],
    );
    return rows.length === 1;
  }

  find(id: string): Promise<AppEventEntity | null> {
    return this.repo.findOneBy({ id });
  }

  findOwned(organizationId: string, id: string): Promise<AppEventEntity | null> {
    return this.repo.findOneBy({ organizationId, id });
  }

  async forFanOut(id: string): Promise<EventToFanOut | null> {
    const rows: Array<{
      id: string;
      organization_id: string;
      connection_id: string;
      trigger: string;
      payload: string;
      listeners_resolved: boolean;
      bindings: BindingRow[];
    }> = await this.dataSource.query(
      `SELECT e.id, e.organization_id, e.connection_id, e.trigger, e.payload, e.listeners_resolved,
              COALESCE((SELECT json_agg(b) FROM events.trigger_bindings b
                         WHERE b.connection_id = e.connection_id AND b.trigger = e.trigger), '[]') AS bindings
         FROM events.app_events e WHERE e.id = $1`,
      [id],
    );
    const row = rows[0];
    return row
      ? {
          id: row.id,
          organizationId: row.organization_id,
          connectionId: row.connection_id,
          trigger: row.trigger,
          payload: row.payload,
          listenersResolved: row.listeners_resolved,
          bindings: row.bindings.map(toBinding),
        }
      : null;
  }

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
    const rows: unknown[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE events.app_events
            SET listeners_resolved = true, fanned_out_at = CASE WHEN $3 THEN now() END
          WHERE id = $1 AND NOT listeners_resolved
          RETURNING id),
       recorded AS (
         INSERT INTO events.event_outcomes
           (event_id, workflow_id, trigger_node_id, organization_id, outcome, run_id, error)
         SELECT claimed.id, o.w, o.n, $2, o.outcome, o.run, o.error
           FROM claimed, unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
                AS o(w, n, outcome, run, error)
         ON CONFLICT DO NOTHING)
       SELECT id FROM claimed`,
      [eventId, organizationId, finished, ...outcomeColumns(outcomes)],
    );
    return rows.length === 1;
  }

  /**
   * Records decided outcomes of an event whose listeners were recorded before, and finishes the
   * event when none is left pending. A trigger that started a run keeps that outcome: a replay or a
   * second fan-out never overwrites it.
   */
  async recordDecided(eventId: string, organizationId: string, decided: DecidedOutcome[]): Promise<void> {
    await this.dataSource.query(
      `WITH recorded AS (
         INSERT INTO events.event_outcomes
           (event_id, workflow_id, trigger_node_id, organization_id, outcome, run_id, error, at)
         SELECT $1, o.w, o.n, $2, o.outcome, o.run, o.error, now()
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS o(w, n, outcome, run, error)
         ON CONFLICT (event_id, workflow_id, trigger_node_id) DO UPDATE
           SET outcome = EXCLUDED.outcome, run_id = EXCLUDED.run_id, error = EXCLUDED.error, at = EXCLUDED.at
           WHERE event_outcomes.outcome IS DISTINCT FROM 'started')
       UPDATE events.app_events SET fanned_out_at = now()
        WHERE id = $1 AND fanned_out_at IS NULL AND listeners_resolved
          AND NOT EXISTS (
            SELECT 1 FROM events.event_outcomes p
             WHERE p.event_id = $1 AND p.outcome IS NULL
               AND (p.workflow_id, p.trigger_node_id) NOT IN (SELECT * FROM unnest($3::text[], $4::text[])))`,
      [eventId, organizationId, ...outcomeColumns(decided)],
    );
  }

  async pendingOutcomes(eventId: string): Promise<OutcomeRow[]> {
    const rows: RawOutcome[] = await this.dataSource.query(
      `SELECT * FROM events.event_outcomes WHERE event_id = $1 AND outcome IS NULL`,
      [eventId],
    );
    return rows.map(toOutcome);
  }

  async outcomeOf(eventId: string, workflowId: string, triggerNodeId: string): Promise<OutcomeRow | null> {
    const rows: RawOutcome[] = await this.dataSource.query(
      `SELECT * FROM events.event_outcomes WHERE event_id = $1 AND workflow_id = $2 AND trigger_node_id = $3`,
      [eventId, workflowId, triggerNodeId],
    );
    return rows[0] ? toOutcome(rows[0]) : null;
  }

  /** Whether the event reached the workflow at all (it has an outcome row for it). */
  async reached(eventId: string, workflowId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM events.event_outcomes WHERE event_id = $1 AND workflow_id = $2 LIMIT 1`,
      [eventId, workflowId],
    );
    return rows.length > 0;
  }

  /**
   * Claims stored events whose fan-out has not finished after `olderThanMs` (a lost publish, a
   * crash) and was not swept in that time either; each claim numbers its sweep so its job is new.
   */
  async claimUnfinished(olderThanMs: number, limit: number): Promise<Array<{ id: string; sweeps: number }>> {
    const [rows]: [Array<{ id: string; sweeps: number }>, number] = await this.dataSource.query(
      `UPDATE events.app_events SET swept_at = now(), sweeps = sweeps + 1
        WHERE id IN (
          SELECT id FROM events.app_events
           WHERE fanned_out_at IS NULL
             AND received_at < now() - make_interval(secs => $1 / 1000.0)
             AND (swept_at IS NULL OR swept_at < now() - make_interval(secs => $1 / 1000.0))
           ORDER BY received_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
        RETURNING id, sweeps`,
      [olderThanMs, limit],
    );
    return rows;
  }

  /** Deletes events past the contract's retention, a batch at a time; returns how many went. */
  async deleteExpired(batch: number): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM events.app_events WHERE id IN (
         SELECT id FROM events.app_events
          WHERE received_at < now() - make_interval(days => $1)
          LIMIT $2)`,
      [EVENT_RETENTION_DAYS, batch],
    );
    return count;
  }

  /** The workflow's events, newest first, and the decided outcomes of its triggers for each. */
  async listForWorkflow(
    organizationId: string,
    workflowId: string,
    page: PageRequest,
  ): Promise<{ page: Page<AppEventEntity>; outcomes: OutcomeRow[] }> {
    const query = this.repo
      .createQueryBuilder('event')
      .where('event.organization_id = :organizationId', { organizationId })
      .andWhere(
        'EXISTS (SELECT 1 FROM events.event_outcomes o WHERE o.event_id = event.id AND o.workflow_id = :workflowId)',
        { workflowId },
      );
    const events = await paginate(query, page);
    if (events.data.length === 0) return { page: events, outcomes: [] };
    const rows: RawOutcome[] = await this.dataSource.query(
      `SELECT * FROM events.event_outcomes
        WHERE event_id = ANY($1::uuid[]) AND workflow_id = $2 AND outcome IS NOT NULL
        ORDER BY trigger_node_id`,
      [events.data.map((event) => event.id), workflowId],
    );
    return { page: events, outcomes: rows.map(toOutcome) };
  }
}
