import type { Page } from '#common';
import {
  NOTIFICATION_RETENTION_DAYS,
  type NotificationDeliveriesQueryDto,
  type NotificationDeliveryDto,
} from '#contracts';
import { InjectKysely, keysetPage, newId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../events.tables.js';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type NewDeliveries,
  NOTIFICATION_DELIVERY_COLUMNS,
  toNotificationDeliveryDto,
} from './notification-delivery.mapper.js';

@Injectable()
export class NotificationDeliveryRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * One pending delivery, due now, per endpoint of the organization among `endpointIds`; an endpoint
   * that is gone is skipped, and one that has this run's delivery already keeps it. Answers how many
   * are new.
   */
  async record(deliveries: NewDeliveries): Promise<number> {
    if (deliveries.endpointIds.length === 0) return 0;
    const ids = deliveries.endpointIds.map(() => newId());
    const rows = await sql<{ id: string }>`
      insert into events.notification_deliveries
        (id, endpoint_id, organization_id, run_id, workflow_id, run_status, body, next_attempt_at)
      select planned.id, e.id, e.organization_id, ${deliveries.runId}, ${deliveries.workflowId},
        ${deliveries.runStatus}, ${deliveries.body}, now()
      from unnest(${ids}::uuid[], ${deliveries.endpointIds}::uuid[]) as planned (id, endpoint_id)
      join events.notification_endpoints e
        on e.id = planned.endpoint_id and e.organization_id = ${deliveries.organizationId}
      on conflict (endpoint_id, run_id) do nothing
      returning id`.execute(this.db);
    return rows.rows.length;
  }

  /**
   * Claims up to `limit` pending deliveries that are due: each counts an attempt, and is not due again
   * until `leaseMs` from now, so an attempt lost with its process is made again then. SKIP LOCKED lets
   * every replica claim its own, and nothing stays locked while the attempts are sent. A delivery due
   * again with `maxAttempts` made (its last attempt was lost) has failed.
   */
  async claimDue(limit: number, leaseMs: number, maxAttempts: number): Promise<ClaimedDelivery[]> {
    await this.db
      .updateTable('events.notification_deliveries')
      .set({
        status: 'failed',
        last_response_status: null,
        last_error: `The last of ${maxAttempts} attempts was cut short (the service stopped) and not tried again.`,
        next_attempt_at: null,
        claim: null,
        updated_at: sql<Date>`now()`,
      })
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', sql<Date>`now()`)
      .where('attempts', '>=', maxAttempts)
      .execute();
    const claim = newId();
    const rows = await this.db
      .updateTable('events.notification_deliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        claim,
        next_attempt_at: sql<Date>`now() + make_interval(secs => ${leaseMs} / 1000.0)`,
        updated_at: sql<Date>`now()`,
      }))
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('events.notification_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', sql<Date>`now()`)
          .where('attempts', '<', maxAttempts)
          .orderBy('next_attempt_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'endpoint_id', 'organization_id', 'body', 'attempts'])
      .execute();
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      organizationId: row.organization_id,
      body: row.body,
      attempt: row.attempts,
      claim,
    }));
  }

  /** Records an attempt's outcome, unless another claim has taken the delivery since (false then). */
  async recordAttempt(delivery: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('events.notification_deliveries')
      .set((eb) => ({
        status: record.status,
        outcomes: sql`${eb.ref('outcomes')} || ${JSON.stringify([record.outcome])}::jsonb`,
        last_response_status: record.outcome.responseStatus,
        last_error: record.outcome.error,
        next_attempt_at: record.nextAttemptAt,
        claim: null,
        updated_at: sql<Date>`now()`,
      }))
      .where('id', '=', delivery.id)
      .where('claim', '=', delivery.claim)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  /** The endpoint's deliveries, newest first. */
  async list(
    endpointId: string,
    query: NotificationDeliveriesQueryDto,
  ): Promise<Page<NotificationDeliveryDto>> {
    const page = await keysetPage(query, ({ after, limit }) => {
      let select = this.db
        .selectFrom('events.notification_deliveries')
        .select(NOTIFICATION_DELIVERY_COLUMNS)
        .where('endpoint_id', '=', endpointId);
      if (query.runId !== undefined) select = select.where('run_id', '=', query.runId);
      if (query.status !== undefined) select = select.where('status', '=', query.status);
      if (after !== undefined) select = select.where('id', '<', after);
      return select.orderBy('id', 'desc').limit(limit).execute();
    });
    return { data: page.data.map(toNotificationDeliveryDto), nextCursor: page.nextCursor };
  }

  /** Deletes deliveries past retention, a batch at a time; returns how many went. */
  async deleteExpired(batch: number): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('events.notification_deliveries')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('events.notification_deliveries')
          .select('id')
          .where('created_at', '<', sql<Date>`now() - make_interval(days => ${NOTIFICATION_RETENTION_DAYS})`)
          .limit(batch),
      )
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }
}
