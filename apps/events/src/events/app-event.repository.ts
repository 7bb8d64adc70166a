import type { Page } from '#common';
import { EVENT_RETENTION_DAYS } from '#contracts';
import {
  type AuditCaller,
  type AuditEvent,
  InjectKysely,
  keysetPage,
  mapPage,
  type PageRequest,
} from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';

import { audit } from '../audit/events-audit.js';
import type { DB } from '../events.tables.js';
import { BINDING_COLUMNS } from '../subscriptions/binding.mapper.js';
import {
  APP_EVENT_COLUMNS,
  type AppEventRecord,
  type EventToFanOut,
  type NewAppEvent,
  toAppEventRecord,
  toEventToFanOut,
} from './app-event.mapper.js';
import { type OutcomeRecord, toOutcomeRecord } from './event-outcome.mapper.js';

/** `ms` milliseconds before now, as Postgres counts it. */
const msAgo = (ms: number) => sql<Date>`now() - make_interval(secs => ${ms} / 1000.0)`;

@Injectable()
export class AppEventRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Records a change whose own effect is no row of this service (a replay queues a job). */
  async recordAudit(caller: AuditCaller, event: AuditEvent): Promise<void> {
    await audit.record(this.db, caller, event);
  }

  /** Stores a delivery; false when this connection already has one with the same delivery id. */
  async insert(event: NewAppEvent): Promise<boolean> {
    const rows = await this.db
      .insertInto('events.app_events')
      .values({
        id: event.id,
        organization_id: event.organizationId,
        connection_id: event.connectionId,
        trigger: event.trigger,
        delivery_id: event.deliveryId,
        payload: event.payload,
        fired_at: event.firedAt,
      })
      .onConflict((oc) => oc.columns(['connection_id', 'delivery_id']).doNothing())
      .returning('id')
      .execute();
    return rows.length === 1;
  }

  async find(id: string): Promise<AppEventRecord | null> {
    const row = await this.db
      .selectFrom('events.app_events')
      .select(APP_EVENT_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toAppEventRecord(row) : null;
  }

  async findOwned(organizationId: string, id: string): Promise<AppEventRecord | null> {
    const row = await this.db
      .selectFrom('events.app_events')
      .select(APP_EVENT_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toAppEventRecord(row) : null;
  }

  async forFanOut(id: string): Promise<EventToFanOut | null> {
    const row = await this.db
      .selectFrom('events.app_events as e')
      .select([
        'e.id',
        'e.organization_id',
        'e.connection_id',
        'e.trigger',
        'e.payload',
        'e.listeners_resolved',
      ])
      .select((eb) =>
        jsonArrayFrom(
          eb
            .selectFrom('events.trigger_bindings as b')
            .select(BINDING_COLUMNS.map((column) => `b.${column}` as const))
            .whereRef('b.connection_id', '=', 'e.connection_id')
            .whereRef('b.trigger', '=', 'e.trigger'),
        ).as('bindings'),
      )
      .where('e.id', '=', id)
      .executeTakeFirst();
    return row ? toEventToFanOut(row) : null;
  }
  /**
   * Claims stored events whose fan-out has not finished after `olderThanMs` (a lost publish, a
   * crash) and was not swept in that time either; each claim numbers its sweep so its job is new.
   */
  claimUnfinished(olderThanMs: number, limit: number): Promise<Array<{ id: string; sweeps: number }>> {
    return this.db
      .updateTable('events.app_events')
      .set((eb) => ({ swept_at: sql<Date>`now()`, sweeps: eb('sweeps', '+', 1) }))
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('events.app_events')
          .select('id')
          .where('fanned_out_at', 'is', null)
          .where('received_at', '<', msAgo(olderThanMs))
          .where((eb) => eb.or([eb('swept_at', 'is', null), eb('swept_at', '<', msAgo(olderThanMs))]))
          .orderBy('received_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'sweeps'])
      .execute();
  }

  /** Deletes events past the contract's retention, a batch at a time; returns how many went. */
  async deleteExpired(batch: number): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('events.app_events')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('events.app_events')
          .select('id')
          .where('received_at', '<', sql<Date>`now() - make_interval(days => ${EVENT_RETENTION_DAYS})`)
          .limit(batch),
      )
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }

  /** The workflow's events, newest first, and the decided outcomes of its triggers for each. */
  async listForWorkflow(
    organizationId: string,
    workflowId: string,
    page: PageRequest,
  ): Promise<{ page: Page<AppEventRecord>; outcomes: OutcomeRecord[] }> {
    const events = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('events.app_events as e')
        .select(APP_EVENT_COLUMNS.map((column) => `e.${column}` as const))
        .where('e.organization_id', '=', organizationId)
        .where(({ exists, selectFrom, lit }) => {
          let reached = selectFrom('events.event_outcomes as o')
            .select(lit(1).as('reached'))
            .whereRef('o.event_id', '=', 'e.id')
            .where('o.workflow_id', '=', workflowId);
          // Implied by the join, but stated so the walk of the workflow's outcomes starts at the
          // cursor too: without it a deep page reads every newer outcome first (docs/benchmarks.md,
          // "Growth").
          if (after !== undefined) reached = reached.where('o.event_id', '<', after);
          return exists(reached);
        });
      if (after !== undefined) query = query.where('e.id', '<', after);
      return query.orderBy('e.id', 'desc').limit(limit).execute();
    });
    if (events.data.length === 0) return { page: mapPage(events, toAppEventRecord), outcomes: [] };
    const rows = await this.db
      .selectFrom('events.event_outcomes')
      .selectAll()
      .where('event_id', '=', (eb) => eb.fn.any(eb.val(events.data.map((event) => event.id))))
      .where('workflow_id', '=', workflowId)
      .where('outcome', 'is not', null)
      .orderBy('trigger_node_id')
      .execute();
    return {
      page: mapPage(events, toAppEventRecord),
      outcomes: rows.map(toOutcomeRecord),
    };
  }
}
