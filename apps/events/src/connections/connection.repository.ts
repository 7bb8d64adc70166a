import type { Page } from '#common';
import type { ConnectionHealth, UnhealthyConnection } from '#contracts';
import { type AuditCaller, InjectKysely, keysetPage, mapPage, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/events-audit.js';
import type { DB } from '../events.tables.js';
import {
  CONNECTION_COLUMNS,
  type ConnectionRecord,
  type NewConnection,
  type SealedConnection,
  toConnectionColumns,
  toConnectionRecord,
  toSealedConnection,
} from './connection.mapper.js';

@Injectable()
export class ConnectionRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  async insert(connection: NewConnection, caller: AuditCaller): Promise<ConnectionRecord> {
    const row = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .insertInto('events.connections')
          .values({ ...toConnectionColumns(connection), health: 'healthy' })
          .returning(CONNECTION_COLUMNS)
          .executeTakeFirstOrThrow(),
      // Never the credentials: which app, and the name.
      (created) => ({
        action: 'connection.created',
        resource: { type: 'connection', id: created.id, name: created.name },
        details: { integrationId: created.integration_id },
      }),
    );
    return toConnectionRecord(row);
  }

  /** With their sealed credentials: what members may read of them is opened by the service. */
  async list(organizationId: string, page: PageRequest): Promise<Page<SealedConnection>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('events.connections')
        .selectAll()
        .where('organization_id', '=', organizationId);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toSealedConnection);
  }

  async summaries(organizationId: string): Promise<Array<Pick<ConnectionRecord, 'id' | 'integrationId'>>> {
    const rows = await this.db
      .selectFrom('events.connections')
      .select(['id', 'integration_id'])
      .where('organization_id', '=', organizationId)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ id: row.id, integrationId: row.integration_id }));
  }

  /** The dashboard's unhealthy connections, by name. */
  async unhealthy(organizationId: string, limit: number): Promise<UnhealthyConnection[]> {
    const rows = await this.db
      .selectFrom('events.connections')
      .select(['id', 'name', 'integration_id'])
      .where('organization_id', '=', organizationId)
      .where('health', '<>', 'healthy')
      .orderBy('name')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: row.id, name: row.name, integrationId: row.integration_id }));
  }

  async count(organizationId: string): Promise<number> {
    const { count } = await this.db
      .selectFrom('events.connections')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return count;
  }

  /** With its credentials, whichever organization it belongs to (webhook ingress knows only the id). */
  async findSealed(id: string): Promise<SealedConnection | null> {
    const row = await this.db
      .selectFrom('events.connections')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSealedConnection(row) : null;
  }

  /**
   * Deletes the connection, and breaks the live subscriptions of its triggers in the same
   * transaction: from then on they report `dead`.
   */
  delete(organizationId: string, id: string, caller: AuditCaller): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('events.connections')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returning(['name', 'integration_id'])
        .executeTakeFirst();
      if (!deleted) return false;
      await audit.record(trx, caller, {
        action: 'connection.deleted',
        resource: { type: 'connection', id, name: deleted.name },
        details: { integrationId: deleted.integration_id },
      });
      await trx
        .updateTable('events.trigger_bindings')
        .set({ status: 'error', error: 'The connection was deleted.', updated_at: sql`now()` })
        .where('connection_id', '=', id)
        .where('status', '=', 'active')
        .execute();
      return true;
    });
  }

  /** Replaces the sealed credentials of the organization's connection; null when there is none. */
  async setCredentials(
    organizationId: string,
    id: string,
    credentials: Buffer,
    caller: AuditCaller,
    action: 'connection.updated' | 'connection.sending_secret_rotated',
  ): Promise<SealedConnection | null> {
    const row = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .updateTable('events.connections')
          .set({ credentials, updated_at: sql`now()` })
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst(),
      (updated) => ({
        action,
        resource: { type: 'connection', id, name: updated.name },
        details: { integrationId: updated.integration_id },
      }),
    );
    return row ? toSealedConnection(row) : null;
  }

  async setHealth(id: string, health: ConnectionHealth): Promise<void> {
    await this.db
      .updateTable('events.connections')
      .set({ health, updated_at: sql`now()` })
      .where('id', '=', id)
      .where('health', '<>', health)
      .execute();
  }
}
