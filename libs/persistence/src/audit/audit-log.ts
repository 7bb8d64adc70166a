import { DomainException } from '#common';
import { type Kysely, type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';

import { isId, newId } from '../id.util.js';
import {
  type AuditCaller,
  type AuditEntry,
  type AuditEvent,
  type AuditRow,
  auditRowOf,
  toAuditEntry,
} from './audit-entry.js';

/** The filters of a list, as `GET /api/v1/audit` takes them (the contract's `AuditFilterDto`). */
export interface AuditFilter {
  action?: string;
  actorType?: string;
  actorId?: string;
  resourceType?: string;
  resourceId?: string;
  from?: string;
  to?: string;
}

/** A service's page request (the contract's `AuditListRequest`). */
export interface AuditListQuery {
  filter: AuditFilter;
  after?: { at: string; id: string };
  limit: number;
}

/**
 * One service's audit log: `<schema>.audit_entries`. Writes join the caller's transaction, so a change
 * and its record commit or roll back together; there is no update or delete but retention's
 * (and the table refuses UPDATE, `auditEntriesMigration`).
 */
export class AuditLog {
  private readonly table: RawBuilder<unknown>;

  constructor(readonly schema: string) {
    this.table = sql.table(`${schema}.audit_entries`);
  }

  /**
   * Records `event` by `caller` (null: the service itself, for `organizationId`) in `db`, which
   * should be the transaction making the change.
   */
  async record(db: QueryExecutorProvider, caller: AuditCaller, event: AuditEvent): Promise<void> {
    const row = auditRowOf(newId(), caller, event);
    await sql`
      insert into ${this.table} (id, organization_id, at, actor_type, actor_id, action, resource_type,
        resource_id, resource_name, details, client_address, user_agent, request_id)
      values (${row.id}, ${row.organization_id}, date_trunc('milliseconds', clock_timestamp()),
        ${row.actor_type}, ${row.actor_id}, ${row.action}, ${row.resource_type}, ${row.resource_id},
        ${row.resource_name}, ${JSON.stringify(row.details)}::jsonb, ${row.client_address},
        ${row.user_agent}, ${row.request_id})`.execute(db);
  }

  /**
   * Runs `change` in a transaction and records what it answers (nothing when it answers null: the
   * change did not happen) in that same transaction.
   */
  async recording<DB, T>(
    db: Kysely<DB>,
    caller: AuditCaller,
    change: (trx: Kysely<DB>) => Promise<T>,
    eventOf: (result: NonNullable<T>) => AuditEvent | null,
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const result = await change(trx);
      if (result !== null && result !== undefined) {
        const event = eventOf(result);
        if (event) await this.record(trx, caller, event);
      }
      return result;
    });
  }

  /**
   * Up to `limit` entries of the organization matching the filter, newest first by (at, id), after
   * `after`: a keyset page, which the gateway merges with the other services' pages.
   */
  async list(
    db: QueryExecutorProvider,
    organizationId: string,
    query: AuditListQuery,
  ): Promise<AuditEntry[]> {
    const { filter, after } = query;
    const where = [sql`organization_id = ${organizationId}`];
    if (filter.action !== undefined) {
      where.push(
        filter.action.endsWith('.')
          ? sql`starts_with(action, ${filter.action})`
          : sql`action = ${filter.action}`,
      );
    }
    if (filter.actorType !== undefined) where.push(sql`actor_type = ${filter.actorType}`);
    if (filter.actorId !== undefined) where.push(sql`actor_id = ${filter.actorId}`);
    if (filter.resourceType !== undefined) where.push(sql`resource_type = ${filter.resourceType}`);
    if (filter.resourceId !== undefined) where.push(sql`resource_id = ${filter.resourceId}`);
    if (filter.from !== undefined) where.push(sql`at >= ${filter.from}::timestamptz`);
    if (filter.to !== undefined) where.push(sql`at < ${filter.to}::timestamptz`);
    if (after !== undefined) {
      if (!isId(after.id)) {
        throw DomainException.invalidRequest([
          { path: 'cursor', message: 'cursor is not a cursor this API returned' },
        ]);
      }
      where.push(sql`(at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
    }
    const { rows } = await sql<AuditRow>`
      select id, organization_id, at, actor_type, actor_id, action, resource_type, resource_id,
        resource_name, details, client_address, user_agent, request_id
      from ${this.table}
      where ${sql.join(where, sql` and `)}
      order by at desc, id desc
      limit ${query.limit}`.execute(db);
    return rows.map(toAuditEntry);
  }

  /**
   * Deletes up to `batch` entries older than `retentionDays` days; answers how many. The only delete
   * of the log.
   */
  async deleteExpired(db: QueryExecutorProvider, retentionDays: number, batch: number): Promise<number> {
    const result = await sql`
      delete from ${this.table} where id in (
        select id from ${this.table}
        where at < now() - make_interval(days => ${retentionDays})
        order by at
        limit ${batch})`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  }
}

export type { AuditCaller, AuditEntry, AuditEvent };
