import type { SubscriptionStatus } from '#contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

import type { EventFilter } from './event-filter.js';

/** One App event trigger of a live version, as subscribed. */
export interface Binding {
  workflowId: string;
  triggerNodeId: string;
  organizationId: string;
  connectionId: string;
  trigger: string;
  filter: EventFilter | null;
  filterKey: string;
  status: SubscriptionStatus;
  error: string | null;
}

export interface BindingRow {
  workflow_id: string;
  trigger_node_id: string;
  organization_id: string;
  connection_id: string;
  trigger: string;
  filter: EventFilter | null;
  filter_key: string;
  status: SubscriptionStatus;
  error: string | null;
}

export const toBinding = (row: BindingRow): Binding => ({
  workflowId: row.workflow_id,
  triggerNodeId: row.trigger_node_id,
  organizationId: row.organization_id,
  connectionId: row.connection_id,
  trigger: row.trigger,
  filter: row.filter,
  filterKey: row.filter_key,
  status: row.status,
  error: row.error,
});

/** A subscription: the triggers with this connection, trigger and filter share it. */
export const subscriptionKey = (binding: Pick<Binding, 'connectionId' | 'trigger' | 'filterKey'>) =>
  `${binding.connectionId}\u0000${binding.trigger}\u0000${binding.filterKey}`;

@Injectable()
export class BindingRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` holding the organization's subscription lock, so two publishes racing at the plan
   * limit are counted one after the other. Nothing inside may wait on another service.
   */
  lockedFor<T>(organizationId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`subscriptions:${organizationId}`]);
      return work(manager);
    });
  }

  /** The subscriptions the organization's live triggers hold, leaving one workflow's out. */
  async activeKeys(
    manager: EntityManager,
    organizationId: string,
    exceptWorkflowId?: string,
  ): Promise<Set<string>> {
    const rows: BindingRow[] = await manager.query(
      `SELECT DISTINCT connection_id, trigger, filter_key FROM events.trigger_bindings
        WHERE organization_id = $1 AND status = 'active' AND workflow_id IS DISTINCT FROM $2`,
      [organizationId, exceptWorkflowId ?? null],
    );
    return new Set(rows.map((row) => subscriptionKey(toBinding(row))));
  }

  /** The subscriptions the plan counts: distinct connection, trigger and filter among active triggers. */
  async activeCount(organizationId: string): Promise<number> {
    const rows: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM (
         SELECT DISTINCT connection_id, trigger, filter_key FROM events.trigger_bindings
          WHERE organization_id = $1 AND status = 'active') AS subscriptions`,
      [organizationId],
    );
    return rows[0]?.count ?? 0;
  }

  /** The workflow's triggers become exactly these, all active. */
  async replace(
    manager: EntityManager,
    organizationId: string,
    workflowId: string,
    bindings: Binding[],
  ): Promise<void> {
    await manager.query(
      `DELETE FROM events.trigger_bindings WHERE organization_id = $1 AND workflow_id = $2`,
      [organizationId, workflowId],
    );
    if (bindings.length === 0) return;
    await manager.query(
      `INSERT INTO events.trigger_bindings
         (workflow_id, trigger_node_id, organization_id, connection_id, trigger, filter, filter_key, status)
       SELECT $1, node, $2, connection::uuid, trig, NULLIF(filt, 'null')::jsonb, fkey, 'active'
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS b(node, connection, trig, filt, fkey)`,
      [
        workflowId,
        organizationId,
        bindings.map((binding) => binding.triggerNodeId),
        bindings.map((binding) => binding.connectionId),
        bindings.map((binding) => binding.trigger),
        bindings.map((binding) => JSON.stringify(binding.filter)),
        bindings.map((binding) => binding.filterKey),
      ],
    );
  }

  /** Pause: the triggers stay, stopped, so events reaching them are reported `no_listener`. */
  async stop(organizationId: string, workflowId: string): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `UPDATE events.trigger_bindings SET status = 'stopped', error = NULL, updated_at = now()
        WHERE organization_id = $1 AND workflow_id = $2 AND status <> 'stopped'`,
      [organizationId, workflowId],
    );
    return count;
  }

  /** A deleted workflow: its triggers are forgotten. */
  async remove(organizationId: string, workflowId: string): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM events.trigger_bindings WHERE organization_id = $1 AND workflow_id = $2`,
      [organizationId, workflowId],
    );
    return count;
  }

  async find(organizationId: string, workflowId: string, triggerNodeIds: string[]): Promise<Binding[]> {
    const rows: BindingRow[] = await this.dataSource.query(
      `SELECT * FROM events.trigger_bindings
        WHERE organization_id = $1 AND workflow_id = $2 AND trigger_node_id = ANY($3::text[])`,
      [organizationId, workflowId, triggerNodeIds],
    );
    return rows.map(toBinding);
  }

  /** Triggers whose subscription is broken, with their connection's health (null when it is gone). */
  async unhealthy(
    organizationId: string,
  ): Promise<Array<Binding & { health: 'healthy' | 'unhealthy' | null }>> {
    const rows: Array<BindingRow & { health: 'healthy' | 'unhealthy' | null }> = await this.dataSource.query(
      `SELECT b.*, c.health FROM events.trigger_bindings b
         LEFT JOIN events.connections c ON c.id = b.connection_id
        WHERE b.organization_id = $1 AND b.status <> 'stopped'
          AND (b.status = 'error' OR c.id IS NULL OR c.health <> 'healthy')
        ORDER BY b.workflow_id, b.trigger_node_id
        LIMIT 500`,
      [organizationId],
    );
    return rows.map((row) => ({ ...toBinding(row), health: row.health }));
  }
}
