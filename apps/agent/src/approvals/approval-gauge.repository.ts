import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../agent.tables.js';
import { EXPIRY_WINDOWS } from './approval.metrics.js';

export interface ApprovalCounts {
  pending: number;
  expiring: Record<keyof typeof EXPIRY_WINDOWS, number>;
}

@Injectable()
export class ApprovalGaugeRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** The pending approvals and those about to expire, in one read of `approvals_pending_idx`. */
  async counts(): Promise<ApprovalCounts> {
    const row = await this.db
      .selectFrom('agent.approvals')
      .select([
        sql<number>`count(*)::int`.as('pending'),
        sql<number>`count(*) FILTER (WHERE expires_at <= now() + make_interval(secs => ${EXPIRY_WINDOWS['1h']}))::int`.as(
          'hour',
        ),
        sql<number>`count(*) FILTER (WHERE expires_at <= now() + make_interval(secs => ${EXPIRY_WINDOWS['24h']}))::int`.as(
          'day',
        ),
      ])
      .where('status', '=', 'pending')
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirstOrThrow();
    return { pending: row.pending, expiring: { '1h': row.hour, '24h': row.day } };
  }
}
