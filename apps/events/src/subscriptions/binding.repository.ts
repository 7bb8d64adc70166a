import type { ConnectionHealth } from '#contracts';
import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../events.tables.js';
import {
  type Binding,
  BINDING_COLUMNS,
  bindingColumns,
  subscriptionKey,
  toBinding,
} from './binding.mapper.js';

@Injectable()
export class BindingRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Runs `work` holding the organization's subscription lock, so two publishes racing at the plan
   * limit are counted one after the other. Nothing inside may wait on another service.
   */
  lockedFor<T>(organizationId: string, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .selectNoFrom((eb) =>
          eb
            .fn('pg_advisory_xact_lock', [eb.fn('hashtext', [eb.val(`subscriptions:${organizationId}`)])])
            .as('locked'),
        )
        .execute();
      return work(trx);
    });
  }

  /** The subscriptions the organization's live triggers hold, leaving one workflow's out. */
  async activeKeys(trx: Kysely<DB>, organizationId: string, exceptWorkflowId?: string): Promise<Set<string>> {
    const rows = await trx
      .selectFrom('events.trigger_bindings')
      .select(['connection_id', 'trigger', 'filter_key'])
      .distinct()
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'active')
      .where('workflow_id', 'is distinct from', exceptWorkflowId ?? null)
      .execute();
    return new Set(
      rows.map((row) =>
        subscriptionKey({ connectionId: row.connection_id, trigger: row.trigger, filterKey: row.filter_key }),
      ),
    );
  }

  /** The subscriptions the plan counts: distinct connection, trigger and filter among active triggers. */
  async activeCount(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom((db) =>
        db
          .selectFrom('events.trigger_bindings')
          .select(['connection_id', 'trigger', 'filter_key'])
          .distinct()
          .where('organization_id', '=', organizationId)
          .where('status', '=', 'active')
          .as('subscriptions'),
      )
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .executeTakeFirst();
    return row?.count ?? 0;
  }

  /** The workflow's triggers become exactly these, all active. */
  async replace(
    trx: Kysely<DB>,
    organizationId: string,
    workflowId: string,
    bindings: Binding[],
  ): Promise<void> {
    await trx
      .deleteFrom('events.trigger_bindings')
      .where('organization_id', '=', organizationId)
      .where('workflow_id', '=', workflowId)
      .execute();
    if (bindings.length === 0) return;
    // One parameter per column, however many triggers the workflow has.
    const columns = bindingColumns(bindings);
    const rows = sql<{
      node: string;
      connection: string;
      trig: string;
      filt: string | null;
      fkey: string;
    }>`unnest(
      ${columns.triggerNodeIds}::text[], ${columns.connectionIds}::text[], ${columns.triggers}::text[],
      ${columns.filters}::text[], ${columns.filterKeys}::text[])`.as<'b'>(
      sql`b(node, connection, trig, filt, fkey)`,
    );
    await trx
      .insertInto('events.trigger_bindings')
      .columns([
        'workflow_id',
        'trigger_node_id',
        'organization_id',
        'connection_id',
        'trigger',
        'filter',
        'filter_key',
        'status',
      ])
      .expression((db) =>
        db
          .selectFrom(rows)
          .select((eb) => [
            eb.val(workflowId).as('workflow_id'),
            'b.node',
            eb.val(organizationId).as('organization_id'),
            eb.cast('b.connection', 'uuid').as('connection_id'),
            'b.trig',
            eb.cast<string | null>('b.filt', 'jsonb').as('filter'),
            'b.fkey',
            eb.val('active').as('status'),
          ]),
      )
      .execute();
  }

  /** Pause: the triggers stay, stopped, so events reaching them are reported `no_listener`. */
  async stop(organizationId: string, workflowId: string): Promise<number> {
    const { numUpdatedRows } = await this.db
      .updateTable('events.trigger_bindings')
      .set({ status: 'stopped', error: null, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('workflow_id', '=', workflowId)
      .where('status', '<>', 'stopped')
      .executeTakeFirstOrThrow();
    return Number(numUpdatedRows);
  }

  /** A deleted workflow: its triggers are forgotten. */
  async remove(organizationId: string, workflowId: string): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('events.trigger_bindings')
      .where('organization_id', '=', organizationId)
      .where('workflow_id', '=', workflowId)
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }

  async find(organizationId: string, workflowId: string, triggerNodeIds: string[]): Promise<Binding[]> {
    const rows = await this.db
      .selectFrom('events.trigger_bindings')
      .select(BINDING_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('workflow_id', '=', workflowId)
      .where('trigger_node_id', '=', (eb) => eb.fn.any(eb.val(triggerNodeIds)))
      .execute();
    return rows.map(toBinding);
  }

  /** Triggers whose subscription is broken, with their connection's health (null when it is gone). */
  async unhealthy(organizationId: string): Promise<Array<Binding & { health: ConnectionHealth | null }>> {
    const rows = await this.db
      .selectFrom('events.trigger_bindings as b')
      .leftJoin('events.connections as c', 'c.id', 'b.connection_id')
      .select(BINDING_COLUMNS.map((column) => `b.${column}` as const))
      .select('c.health')
      .where('b.organization_id', '=', organizationId)
      .where('b.status', '<>', 'stopped')
      .where((eb) =>
        eb.or([eb('b.status', '=', 'error'), eb('c.id', 'is', null), eb('c.health', '<>', 'healthy')]),
      )
      .orderBy('b.workflow_id')
      .orderBy('b.trigger_node_id')
      .limit(500)
      .execute();
    return rows.map((row) => ({ ...toBinding(row), health: row.health }));
  }
}
