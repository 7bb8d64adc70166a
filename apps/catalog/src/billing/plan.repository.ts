import { type AuditCaller, InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/catalog-audit.js';
import type { DB } from '../catalog.tables.js';

/** An organization's plan row: `plan` is a plan id as stored, which may be one the code no longer knows. */
export interface StoredPlan {
  plan: string;
  complimentary: boolean;
}

@Injectable()
export class PlanRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  async find(organizationId: string): Promise<StoredPlan | null> {
    const row = await this.db
      .selectFrom('catalog.organization_plans')
      .select(['plan', 'complimentary'])
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row ?? null;
  }

  /** Sets the plan, recorded as `plan.changed` by `caller` (the admin CLI: the service). */
  async upsert(
    organizationId: string,
    plan: string,
    complimentary: boolean,
    caller: AuditCaller,
  ): Promise<void> {
    await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .insertInto('catalog.organization_plans')
          .values({ organization_id: organizationId, plan, complimentary })
          .onConflict((conflict) =>
            conflict.column('organization_id').doUpdateSet((eb) => ({
              plan: eb.ref('excluded.plan'),
              complimentary: eb.ref('excluded.complimentary'),
              updated_at: sql<Date>`now()`,
            })),
          )
          .returning('plan')
          .executeTakeFirstOrThrow(),
      () => ({
        // The organization's id is in no answer of the API: the plan is the resource.
        action: 'plan.changed',
        resource: { type: 'plan', id: plan, name: plan },
        details: { complimentary },
      }),
    );
  }
}
