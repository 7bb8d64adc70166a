import type { ApprovalStatus, PendingApprovalDto } from '#contracts';
import { isId, newId, queryRows } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

export interface ApprovalRecord {
  id: string;
  organizationId: string;
  runId: string;
  nodeId: string;
  workflowId: string;
  workflowName: string;
  threadId: string;
  toolCallId: string;
  /** The tool as the model knows it. */
  tool: string;
  /** The action ref `<provider>__<action>` and the connection it runs with. */
  action: string;
  connectionId: string;
  input: unknown;
  status: ApprovalStatus;
  reason: string | null;
  decidedAt: Date | null;
  /** The action's outcome once recorded: its answer, or the error it failed with. */
  result: unknown;
  error: string | null;
  settledAt: Date | null;
  expiresAt: Date;
}

export type NewApproval = Omit<
  ApprovalRecord,
  'id' | 'status' | 'reason' | 'decidedAt' | 'result' | 'error' | 'settledAt' | 'expiresAt'
>;

interface ApprovalRow {
  id: string;
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
  input: unknown;
  status: ApprovalStatus;
  reason: string | null;
  decided_at: Date | null;
  result: unknown;
  error: string | null;
  settled_at: Date | null;
  expires_at: Date;
}

const toRecord = (row: ApprovalRow): ApprovalRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  runId: row.run_id,
  nodeId: row.node_id,
  workflowId: row.workflow_id,
  workflowName: row.workflow_name,
  threadId: row.thread_id,
  toolCallId: row.tool_call_id,
  tool: row.tool,
  action: row.action,
  connectionId: row.connection_id,
  input: row.input,
  status: row.status,
  reason: row.reason,
  decidedAt: row.decided_at,
  result: row.result,
  error: row.error,
  settledAt: row.settled_at,
  expiresAt: row.expires_at,
});

/** Approvals of one run's step, as the upkeep hands them on. */
export interface StepRef {
  organizationId: string;
  runId: string;
  nodeId: string;
}

@Injectable()
export class ApprovalRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records a step's ask-first calls, pending until `ttlSeconds` from now; answers them in order. */
  async insertPending(
    approvals: NewApproval[],
    ttlSeconds: number,
    runner: DataSource | EntityManager = this.dataSource,
  ): Promise<ApprovalRecord[]> {
    const rows = await queryRows<ApprovalRow>(
      runner,
      `INSERT INTO agent.approvals (id, organization_id, run_id, node_id, workflow_id, workflow_name,
         thread_id, tool_call_id, tool, action, connection_id, input, expires_at)
       SELECT a.id, a.organization_id, a.run_id, a.node_id, a.workflow_id, a.workflow_name,
         a.thread_id, a.tool_call_id, a.tool, a.action, a.connection_id, a.input,
         now() + make_interval(secs => $2)
         FROM jsonb_to_recordset($1::jsonb) AS a(id uuid, organization_id text, run_id text,
           node_id text, workflow_id text, workflow_name text, thread_id uuid, tool_call_id text, tool text, action text, connection_id text, input jsonb)
       RETURNING *`,
      [
        JSON.stringify(
          approvals.map((approval) => ({
            id: newId(),
            organization_id: approval.organizationId,
            run_id: approval.runId,
            node_id: approval.nodeId,
            workflow_id: approval.workflowId,
            workflow_name: approval.workflowName,
            thread_id: approval.threadId,
            tool_call_id: approval.toolCallId,
            tool: approval.tool,
            action: approval.action,
            connection_id: approval.connectionId,
            input: approval.input ?? null,
          })),
        ),
        ttlSeconds,
      ],
    );
    return rows.map(toRecord).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Every ask-first call of a step, oldest first. */
  async forStep(organizationId: string, runId: string, nodeId: string): Promise<ApprovalRecord[]> {
    const rows = await queryRows<ApprovalRow>(
      this.dataSource,
      `SELECT * FROM agent.approvals WHERE run_id = $2 AND node_id = $3 AND organization_id = $1
        ORDER BY id`,
      [organizationId, runId, nodeId],
    );
    return rows.map(toRecord);
  }

  async find(organizationId: string, id: string): Promise<ApprovalRecord | null> {
    if (!isId(id)) return null;
    const [row] = await queryRows<ApprovalRow>(
      this.dataSource,
      `SELECT * FROM agent.approvals WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return row ? toRecord(row) : null;
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
  ): Promise<ApprovalRecord | null> {
    if (!isId(id)) return null;
    const [row] = await queryRows<ApprovalRow>(
      this.dataSource,
      `UPDATE agent.approvals SET status = $4, reason = $5, decided_by = $6, decided_at = now()
        WHERE id = $1 AND organization_id = $2 AND run_id = $3 AND status = 'pending'
          AND expires_at > now()
        RETURNING *`,
      [id, organizationId, runId, decision.status, decision.reason, decision.decidedBy],
    );
    return row ? toRecord(row) : null;
  }

  /** Expires the step's pending approvals whose time has come; answers those it expired. */
  async expireDue(organizationId: string, runId: string, nodeId: string): Promise<ApprovalRecord[]> {
    const rows = await queryRows<ApprovalRow>(
      this.dataSource,
      `UPDATE agent.approvals SET status = 'expired', decided_at = now()
        WHERE run_id = $2 AND node_id = $3 AND organization_id = $1 AND status = 'pending'
          AND expires_at <= now()
        RETURNING *`,
      [organizationId, runId, nodeId],
    );
    return rows.map(toRecord);
  }

  /**
   * Denies the step's pending calls, which nobody will resume: the step started over (its runner died
   * before it recorded the wait) or the run ended. They can no longer be approved.
   */
  async supersede(organizationId: string, runId: string, nodeId: string, reason: string): Promise<void> {
    await queryRows(
      this.dataSource,
      `UPDATE agent.approvals SET status = 'denied', decided_at = now(), woken_at = now(), reason = $4
        WHERE run_id = $2 AND node_id = $3 AND organization_id = $1 AND status = 'pending'`,
      [organizationId, runId, nodeId, reason],
    );
  }

  /** Records an approved action's outcome, once: a second outcome (a retried run) is dropped. */
  async settle(
    organizationId: string,
    id: string,
    outcome: { result: unknown } | { error: string },
  ): Promise<ApprovalRecord | null> {
    const [row] = await queryRows<ApprovalRow>(
      this.dataSource,
      `UPDATE agent.approvals SET result = $2::jsonb, error = $3, settled_at = now()
        WHERE id = $1 AND organization_id = $4 AND settled_at IS NULL RETURNING *`,
      [
        id,
        'result' in outcome ? JSON.stringify(outcome.result ?? null) : null,
        'error' in outcome ? outcome.error : null,
        organizationId,
      ],
    );
    return row ? toRecord(row) : null;
  }

  /** The step's decisions whose wake has not reached the runner yet. */
  async unwokenOfStep(step: StepRef): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `SELECT id FROM agent.approvals
        WHERE run_id = $2 AND node_id = $3 AND organization_id = $1 AND status <> 'pending'
          AND woken_at IS NULL`,
      [step.organizationId, step.runId, step.nodeId],
    );
    return rows.map((row) => row.id);
  }

  /** The runner took these decisions' wake. */
  async markWoken(organizationId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await queryRows(
      this.dataSource,
      `UPDATE agent.approvals SET woken_at = now() WHERE id = ANY($2::uuid[]) AND organization_id = $1`,
      [organizationId, ids],
    );
  }

  /**
   * Steps with a decision older than `olderThanMs` whose run was not woken yet. Past its approvals'
   * expiry a run no longer waits on them: it has been woken by its own timer.
   */
  async unwoken(olderThanMs: number, limit: number): Promise<StepRef[]> {
    const rows = await queryRows<{ organization_id: string; run_id: string; node_id: string }>(
      this.dataSource,
      `SELECT DISTINCT organization_id, run_id, node_id FROM (
         SELECT organization_id, run_id, node_id FROM agent.approvals
          WHERE status <> 'pending' AND woken_at IS NULL
            AND decided_at < now() - make_interval(secs => $1 / 1000.0) AND expires_at > now()
          ORDER BY decided_at LIMIT $2) due`,
      [olderThanMs, limit],
    );
    return rows.map((row) => ({
      organizationId: row.organization_id,
      runId: row.run_id,
      nodeId: row.node_id,
    }));
  }

  /**
   * Claims approvals whose admins were not emailed yet. A claim is held for `leaseMs`: one that was
   * never confirmed (a crash while sending) is claimed again, at most `maxAttempts` times.
   */
  async claimUnnotified(leaseMs: number, maxAttempts: number, limit: number): Promise<ApprovalRecord[]> {
    const rows = await queryRows<ApprovalRow>(
      this.dataSource,
      `UPDATE agent.approvals a SET notified_at = now() + make_interval(secs => $1 / 1000.0),
         notify_attempts = a.notify_attempts + 1
        WHERE a.id IN (
          SELECT id FROM agent.approvals
           WHERE (notified_at IS NULL OR notified_at < now()) AND status = 'pending'
             AND notify_attempts < $2
           ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING a.*`,
      [leaseMs, maxAttempts, limit],
    );
    return rows.map(toRecord);
  }

  /** The email went out: the claim becomes final. */
  async markNotified(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await queryRows(
      this.dataSource,
      `UPDATE agent.approvals SET notified_at = 'infinity' WHERE id = ANY($1::uuid[])`,
      [ids],
    );
  }

  /** The organization's pending approvals, the soonest to expire first. */
  async pending(organizationId: string, limit: number): Promise<PendingApprovalDto[]> {
    const rows = await queryRows<
      Pick<ApprovalRow, 'run_id' | 'workflow_id' | 'workflow_name' | 'action' | 'expires_at'>
    >(
      this.dataSource,
      `SELECT run_id, workflow_id, workflow_name, action, expires_at FROM agent.approvals
          WHERE organization_id = $1 AND status = 'pending' AND expires_at > now()
          ORDER BY expires_at LIMIT $2`,
      [organizationId, limit],
    );
    return rows.map((row) => ({
      runId: row.run_id,
      workflowId: row.workflow_id,
      workflowName: row.workflow_name,
      tool: row.action,
      expiresAt: row.expires_at.toISOString(),
    }));
  }
}
