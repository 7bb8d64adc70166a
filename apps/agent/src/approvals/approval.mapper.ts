import type { ApprovalStatus } from '#contracts';
import type { Selectable } from 'kysely';

import type { AgentApprovals } from '../agent.tables.js';

/** `action`: an ask-first call of an app action. `budget`: a step that would pass a token budget. */
export type ApprovalKind = 'action' | 'budget';

export interface ApprovalRecord {
  id: string;
  kind: ApprovalKind;
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
  'id' | 'kind' | 'status' | 'reason' | 'decidedAt' | 'result' | 'error' | 'settledAt' | 'expiresAt'
> & { kind?: ApprovalKind };

/** Approvals of one run's step, as the upkeep hands them on. */
export interface StepRef {
  organizationId: string;
  runId: string;
  nodeId: string;
}

/** An approval waiting for a decision, as the dashboard lists it. */
export interface PendingApproval {
  runId: string;
  workflowId: string;
  workflowName: string;
  action: string;
  expiresAt: Date;
}

export const toApprovalRecord = (row: Selectable<AgentApprovals>): ApprovalRecord => ({
  id: row.id,
  kind: row.kind,
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

export const toStepRef = (
  row: Pick<Selectable<AgentApprovals>, 'organization_id' | 'run_id' | 'node_id'>,
): StepRef => ({
  organizationId: row.organization_id,
  runId: row.run_id,
  nodeId: row.node_id,
});

export const toPendingApproval = (
  row: Pick<Selectable<AgentApprovals>, 'run_id' | 'workflow_id' | 'workflow_name' | 'action' | 'expires_at'>,
): PendingApproval => ({
  runId: row.run_id,
  workflowId: row.workflow_id,
  workflowName: row.workflow_name,
  action: row.action,
  expiresAt: row.expires_at,
});

/** New approvals as the JSON rows `jsonb_to_recordset` reads, each with its new id. */
export const toApprovalRowsJson = (approvals: NewApproval[], newId: () => string): string =>
  JSON.stringify(
    approvals.map((approval) => ({
      id: newId(),
      kind: approval.kind ?? 'action',
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
  );
