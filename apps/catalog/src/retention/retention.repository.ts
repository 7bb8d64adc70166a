import { type OrganizationRetention, PLAN_IDS, type RetentionKind } from '#contracts';
import { type AuditCaller, InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/catalog-audit.js';
import type { DB } from '../catalog.tables.js';
import type { ScopeSettings } from './retention.util.js';

export type RetentionScope = 'plan' | 'organization';

/** A change to one kind of a scope: days, null (an explicit keep), or `unset` (the row removed). */
export type RetentionChange = number | null | 'unset';

@Injectable()
export class RetentionRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** The settings of these scopes, by scope id; a scope with none is absent. */
  async settingsOf(scope: RetentionScope, scopeIds: readonly string[]): Promise<Map<string, ScopeSettings>> {
    const found = new Map<string, ScopeSettings>();
    if (scopeIds.length === 0) return found;
    const rows = await this.db
      .selectFrom('catalog.retention_settings')
      .select(['scope_id', 'kind', 'days'])
      .where('scope', '=', scope)
      .where('scope_id', 'in', scopeIds)
      .execute();
    for (const row of rows) found.set(row.scope_id, { ...found.get(row.scope_id), [row.kind]: row.days });
    return found;
  }

  /** The first `limit` organizations (by id) with a setting of their own. */
  async organizationsWithSettings(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('catalog.retention_settings')
      .select('scope_id')
      .distinct()
      .where('scope', '=', 'organization')
      .orderBy('scope_id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.scope_id);
  }

  /**
   * Applies `changes` to a scope in one transaction. An organization's change is in its audit log
   * (`retention.changed`, by the service: only the operator sets retention); a plan has no
   * organization to record it under.
   */
  async write(
    scope: RetentionScope,
    scopeId: string,
    changes: Partial<Record<RetentionKind, RetentionChange>>,
  ): Promise<void> {
    const apply = async (trx: Kysely<DB>) => {
      for (const [kind, change] of Object.entries(changes) as Array<[RetentionKind, RetentionChange]>) {
        if (change === 'unset') {
          await trx
            .deleteFrom('catalog.retention_settings')
            .where('scope', '=', scope)
            .where('scope_id', '=', scopeId)
            .where('kind', '=', kind)
            .execute();
          continue;
        }
        await trx
          .insertInto('catalog.retention_settings')
          .values({ scope, scope_id: scopeId, kind, days: change })
          .onConflict((conflict) =>
            conflict
              .columns(['scope', 'scope_id', 'kind'])
              .doUpdateSet((eb) => ({ days: eb.ref('excluded.days'), updated_at: sql<Date>`now()` })),
          )
          .execute();
      }
      return changes;
    };
    if (scope === 'plan') {
      await this.db.transaction().execute(apply);
      return;
    }
    const operator: AuditCaller = { organizationId: scopeId, userId: null, keyId: null };
    await audit.recording(this.db, operator, apply, (changed) => ({
      action: 'retention.changed',
      resource: { type: 'retention', id: 'organization', name: null },
      details: Object.fromEntries(
        Object.entries(changed).map(([kind, change]) => [
          kind === 'step_payload' ? 'stepPayloadDays' : 'diagramDays',
          change === null ? 'keep' : change === 'unset' ? 'plan' : change,
        ]),
      ),
    }));
  }

  /**
   * A page of the organizations whose effective setting trims something, by id after `after`: for
   * each kind, the organization's own row if it has one (days, or null for an explicit keep), else
   * its plan's (`organization_plans`; none, or a plan id the code no longer knows, is `free`, as
   * `PlanService.planOf` reads it), else keep. One walk of `auth.organization` by its primary key
   * over all the pages, with two look-ups by the settings' primary key per organization: for a
   * task that runs every few minutes, far from a cost worth an index of its own.
   */
  async organizationsToTrim(after: string | undefined, limit: number): Promise<OrganizationRetention[]> {
    const known = sql.join(PLAN_IDS.map((plan) => sql.lit(plan)));
    const planOf = sql<string>`CASE WHEN p.plan IN (${known}) THEN p.plan ELSE 'free' END`;
    const effective = (kind: RetentionKind) => sql<number | null>`(
      SELECT s.days FROM catalog.retention_settings s
       WHERE s.kind = ${kind}
         AND ((s.scope = 'organization' AND s.scope_id = o.id) OR (s.scope = 'plan' AND s.scope_id = ${planOf}))
       ORDER BY s.scope = 'organization' DESC
       LIMIT 1)`;
    const resolved = this.db
      .selectFrom('auth.organization as o')
      .leftJoin('catalog.organization_plans as p', 'p.organization_id', 'o.id')
      .select([
        'o.id as organizationId',
        effective('step_payload').as('stepPayloadDays'),
        effective('diagram').as('diagramDays'),
      ])
      .$if(after !== undefined, (query) => query.where('o.id', '>', after ?? ''));
    return this.db
      .selectFrom(resolved.as('e'))
      .selectAll()
      .where((eb) => eb.or([eb('stepPayloadDays', 'is not', null), eb('diagramDays', 'is not', null)]))
      .orderBy('organizationId')
      .limit(limit)
      .execute();
  }
}
