import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../agent.tables.js';
import { type ApprovalRecord, type StepRef, toApprovalRecord, toStepRef } from './approval.mapper.js';

const now = () => sql<Date>`now()`;

/** What the approvals' upkeep records on them: the wake of their run, and the admins' email. */
@Injectable()
export class ApprovalUpkeepRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** The step's decisions whose wake has not reached the runner yet. */
  async unwokenOfStep(step: StepRef): Promise<string[]> {
    const rows = await this.db
      .selectFrom('agent.approvals')
      .select('id')
      .where('run_id', '=', step.runId)
      .where('node_id', '=', step.nodeId)
      .where('organization_id', '=', step.organizationId)
      .where('status', '<>', 'pending')
      .where('woken_at', 'is', null)
      .execute();
    return rows.map((row) => row.id);
  }

  /** The runner took these decisions' wake. */
  async markWoken(organizationId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('agent.approvals')
      .set({ woken_at: now() })
      .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
      .where('organization_id', '=', organizationId)
      .execute();
  }

  /**
   * Steps with a decision older than `olderThanMs` whose run was not woken yet. Past its approvals'
   * expiry a run no longer waits on them: it has been woken by its own timer.
   */
  async unwoken(olderThanMs: number, limit: number): Promise<StepRef[]> {
    const rows = await this.db
      .selectFrom((db) =>
        db
          .selectFrom('agent.approvals')
          .select(['organization_id', 'run_id', 'node_id'])
          .where('status', '<>', 'pending')
          .where('woken_at', 'is', null)
          .where('decided_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs} / 1000.0)`)
          .where('expires_at', '>', now())
          .orderBy('decided_at')
          .limit(limit)
          .as('due'),
      )
      .select(['organization_id', 'run_id', 'node_id'])
      .distinct()
      .execute();
    return rows.map(toStepRef);
  }

  /**
   * Claims approvals whose admins were not emailed yet. A claim is held for `leaseMs`: one that was
   * never confirmed (a crash while sending) is claimed again, at most `maxAttempts` times.
   */
  async claimUnnotified(leaseMs: number, maxAttempts: number, limit: number): Promise<ApprovalRecord[]> {
    const rows = await this.db
      .updateTable('agent.approvals as a')
      .set((eb) => ({
        notified_at: sql<Date>`now() + make_interval(secs => ${leaseMs} / 1000.0)`,
        notify_attempts: eb('a.notify_attempts', '+', 1),
      }))
      .where('a.id', 'in', (eb) =>
        eb
          .selectFrom('agent.approvals as due')
          .select('due.id')
          .where((eb) => eb.or([eb('due.notified_at', 'is', null), eb('due.notified_at', '<', now())]))
          .where('due.status', '=', 'pending')
          .where('due.notify_attempts', '<', maxAttempts)
          .orderBy('due.created_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll('a')
      .execute();
    return rows.map(toApprovalRecord);
  }

  /** The email went out: the claim becomes final. */
  async markNotified(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('agent.approvals')
      .set({ notified_at: 'infinity' })
      .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
      .execute();
  }
}
