import type { Page } from '#common';
import { type AuditCaller, InjectKysely, keysetPage, mapPage, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/events-audit.js';
import type { DB } from '../events.tables.js';
import {
  type NewNotificationEndpoint,
  NOTIFICATION_ENDPOINT_COLUMNS,
  type NotificationEndpointRecord,
  type SealedNotificationEndpoint,
  toNotificationEndpointRecord,
  toSealedNotificationEndpoint,
} from './notification-endpoint.mapper.js';

@Injectable()
export class NotificationEndpointRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Inserts the endpoint unless the organization has `max` already: null then. The organization's
   * inserts take turns (a transaction lock on its id), so two at once cannot both pass the count.
   */
  insert(
    endpoint: NewNotificationEndpoint,
    max: number,
    caller: AuditCaller,
  ): Promise<NotificationEndpointRecord | null> {
    return audit.recording(
      this.db,
      caller,
      async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`notification-endpoints:${endpoint.organizationId}`}, 0))`.execute(
          trx,
        );
        const { count } = await trx
          .selectFrom('events.notification_endpoints')
          .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
          .where('organization_id', '=', endpoint.organizationId)
          .executeTakeFirstOrThrow();
        if (count >= max) return null;
        const row = await trx
          .insertInto('events.notification_endpoints')
          .values({
            id: endpoint.id,
            organization_id: endpoint.organizationId,
            name: endpoint.name,
            connection_id: endpoint.connectionId,
            url: endpoint.url,
            secret: endpoint.secret,
          })
          .returning(NOTIFICATION_ENDPOINT_COLUMNS)
          .executeTakeFirstOrThrow();
        return toNotificationEndpointRecord(row);
      },
      (created) => ({
        action: 'notification_endpoint.created',
        resource: { type: 'notification_endpoint', id: created.id, name: created.name },
        // The origin only: a URL's path or query can be its secret.
        details: { connectionId: created.connectionId, origin: new URL(created.url).origin },
      }),
    );
  }

  async list(organizationId: string, page: PageRequest): Promise<Page<NotificationEndpointRecord>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('events.notification_endpoints')
        .select(NOTIFICATION_ENDPOINT_COLUMNS)
        .where('organization_id', '=', organizationId);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toNotificationEndpointRecord);
  }

  async find(organizationId: string, id: string): Promise<NotificationEndpointRecord | null> {
    const row = await this.db
      .selectFrom('events.notification_endpoints')
      .select(NOTIFICATION_ENDPOINT_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toNotificationEndpointRecord(row) : null;
  }

  /** With its sealed secret, whichever organization it belongs to (a delivery knows its endpoint's id). */
  async findSealed(id: string): Promise<SealedNotificationEndpoint | null> {
    const row = await this.db
      .selectFrom('events.notification_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSealedNotificationEndpoint(row) : null;
  }

  /** The ids among `ids` of the organization's endpoints. */
  async existing(organizationId: string, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('events.notification_endpoints')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
      .execute();
    return rows.map((row) => row.id);
  }

  async setSecret(organizationId: string, id: string, secret: Buffer, caller: AuditCaller): Promise<boolean> {
    const row = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .updateTable('events.notification_endpoints')
          .set({ secret, updated_at: sql`now()` })
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .returning(['id', 'name'])
          .executeTakeFirst(),
      (updated) => ({
        action: 'notification_endpoint.rotated',
        resource: { type: 'notification_endpoint', id: updated.id, name: updated.name },
      }),
    );
    return row !== undefined;
  }

  /** Deletes the endpoint and, with it, its deliveries (those still pending are never sent). */
  async delete(organizationId: string, id: string, caller: AuditCaller): Promise<boolean> {
    const row = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .deleteFrom('events.notification_endpoints')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .returning(['id', 'name', 'url'])
          .executeTakeFirst(),
      (deleted) => ({
        action: 'notification_endpoint.deleted',
        resource: { type: 'notification_endpoint', id: deleted.id, name: deleted.name },
        details: { origin: new URL(deleted.url).origin },
      }),
    );
    return row !== undefined;
  }
}
