import { type AuditCaller, InjectKysely, isId, newId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/agent-audit.js';
import type { DB } from '../agent.tables.js';
import {
  type ApprovalKind,
  type ApprovalRecord,
  type NewApproval,
  type PendingApproval,
  toApprovalRecord,
  toApprovalRowsJson,
  toPendingApproval,
} from './approval.mapper.js';

/** The columns `insertPending` reads from its JSON rows, as `jsonb_to_recordset` types them. */
interface NewApprovalRow {
  id: string;
  kind: ApprovalKind;
  organization_id: string;
  run_id: string;
  node_id: string;
  workflow_id: string;
  workflow_name: string;
  thread_id: string;
  tool_call_id: string;
  tool: string;
  action: string;
  connection_id: string;
  input: string;
}

const now = () => sql<Date>`now()`;

@Injectable()
export class ApprovalRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Records a step's ask-first calls, pending until `ttlSeconds` from now; answers them in order. */
  async insertPending(
    approvals: NewApproval[],
    ttlSeconds: number,
    db: Kysely<DB> = this.db,
  ): Promise<ApprovalRecord[]> {
    // One parameter for them all, however many calls the step made.
    const rows =
      sql<NewApprovalRow>`jsonb_to_recordset(${toApprovalRowsJson(approvals, newId)}::jsonb)`.as<'a'>(
        sql`a(id uuid, kind text, organization_id text, run_id text, node_id text, workflow_id text, workflow_name text,
        thread_id uuid, tool_call_id text, tool text, action text, connection_id text, input jsonb)`,
      );
    const inserted = await db
      .insertInto('agent.approvals')
      .columns([
        'id',
        'kind',
        'organization_id',
        'run_id',
        'node_id',
        'workflow_id',
        'workflow_name',
        'thread_id',
        'tool_call_id',
        'tool',
        'action',
        'connection_id',
        'input',
        'expires_at',
      ])
      .expression((eb) =>
        eb
          .selectFrom(rows)
          .select([
            'a.id',
            'a.kind',
            'a.organization_id',
            'a.run_id',
            'a.node_id',
            'a.workflow_id',
            'a.workflow_name',
            'a.thread_id',
            'a.tool_call_id',
            'a.tool',
            'a.action',
            'a.connection_id',
            'a.input',
            sql<Date>`now() + make_interval(secs => ${ttlSeconds})`.as('expires_at'),
          ]),
      )
      .returningAll()
      .execute();
    return inserted.map(toApprovalRecord).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Every ask-first call of a step, oldest first. */
  async forStep(organizationId: string, runId: string, nodeId: string): Promise<ApprovalRecord[]> {
    const rows = await this.db
      .selectFrom('agent.approvals')
      .selectAll()
      .where('run_id', '=', runId)
      .where('node_id', '=', nodeId)
      .where('organization_id', '=', organizationId)
      .orderBy('id')
      .execute();
    return rows.map(toApprovalRecord);
  }

  async find(organizationId: string, id: string): Promise<ApprovalRecord | null> {
    if (!isId(id)) return null;
    const row = await this.db
      .selectFrom('agent.approvals')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row ? toApprovalRecord(row) : null;
  }

  /**
   * Takes the decision if the approval is still pending and has not expired: one statement, so a
   * second decision, or the expiry, racing this one finds it taken.
   */
  async decide(
    organizationId: string,
    runId: string,
    id: string,
    decision: { status: 'approved' | 'denied'; reason: string | null; decidedBy: string | null },
    caller: AuditCaller,
    kinds: readonly ApprovalKind[] = ['action', 'budget'],
  ): Promise<ApprovalRecord | null> {
    if (!isId(id)) return null;
    const row = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .updateTable('agent.approvals')
          .set({
            status: decision.status,
            reason: decision.reason,
            decided_by: decision.decidedBy,
            decided_at: now(),
          })
          .where('id', '=', id)
          .where('organization_id', '=', organizationId)
          .where('run_id', '=', runId)
          .where('kind', 'in', kinds)
          .where('status', '=', 'pending')
          .where('expires_at', '>', now())
          .returningAll()
          .executeTakeFirst(),
      (decided) => ({
        action: 'approval.decided',
        resource: { type: 'approval', id: decided.id, name: decided.action },
        details: {
          decision: decided.status,
          runId: decided.run_id,
          workflowId: decided.workflow_id,
          tool: decided.tool,
          ...(decided.reason === null ? {} : { reason: decided.reason }),
        },
      }),
    );
    return row ? toApprovalRecord(row) : null;
  }

  /** Expires the step's pending approvals whose time has come; answers those it expired. */
  async expireDue(organizationId: string, runId: string, nodeId: string): Promise<ApprovalRecord[]> {
    const rows = await this.db
      .updateTable('agent.approvals')
      .set({ status: 'expired', decided_at: now() })
      .where('run_id', '=', runId)
      .where('node_id', '=', nodeId)
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now())
      .returningAll()
      .execute();
    return rows.map(toApprovalRecord);
  }

  /**
   * Denies the step's pending calls, which nobody will resume: the step started over (its runner died
   * before it recorded the wait) or the run ended. They can no longer be approved.
   */
  async supersede(organizationId: string, runId: string, nodeId: string, reason: string): Promise<void> {
    await this.db
      .updateTable('agent.approvals')
      .set({ status: 'denied', decided_at: now(), woken_at: now(), reason })
      .where('run_id', '=', runId)
      .where('node_id', '=', nodeId)
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Denies every pending call of the run, with the cancel's message as the reason: the run was
   * cancelled, and nothing will resume it. Answers how many it closed.
   */
  async closeForRun(organizationId: string, runId: string, reason: string): Promise<number> {
    const rows = await this.db
      .updateTable('agent.approvals')
      .set({ status: 'denied', decided_at: now(), woken_at: now(), reason })
      .where('run_id', '=', runId)
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'pending')
      .returning('id')
      .execute();
    return rows.length;
  }

  /** Records an approved action's outcome, once: a second outcome (a retried run) is dropped. */
  async settle(
    organizationId: string,
    id: string,
    outcome: { result: unknown } | { error: string },
  ): Promise<ApprovalRecord | null> {
    const row = await this.db
      .updateTable('agent.approvals')
      .set({
        result: 'result' in outcome ? JSON.stringify(outcome.result ?? null) : null,
        error: 'error' in outcome ? outcome.error : null,
        settled_at: now(),
      })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('settled_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row ? toApprovalRecord(row) : null;
  }

  /** Whether an owner let the run go past a token budget: that approval covers the rest of the run. */
  async budgetApproved(organizationId: string, runId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('agent.approvals')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .where('kind', '=', 'budget')
      .where('status', '=', 'approved')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The organization's pending approvals, the soonest to expire first. */
  async pending(organizationId: string, limit: number): Promise<PendingApproval[]> {
    const rows = await this.db
      .selectFrom('agent.approvals')
      .select(['run_id', 'workflow_id', 'workflow_name', 'action', 'expires_at'])
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now())
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toPendingApproval);
  }
}
