import type { OperationDto } from '#contracts';
import type { Selectable } from 'kysely';

import type { RunnerOperations } from '../runner.tables.js';
import type { FailureRecord, HeldOperation, OperationRecord } from './operation.record.js';

type OperationRow = Selectable<RunnerOperations>;

export function toOperationRecord(row: OperationRow): OperationRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    action: row.action,
    status: row.status,
    principal: row.principal,
    workflowId: row.workflow_id,
    params: row.params,
    matched: row.matched,
    done: row.done,
    failed: row.failed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

export function toHeldOperation(row: OperationRow): HeldOperation {
  return { ...toOperationRecord(row), leaseToken: row.lease_token };
}

export function toOperationDto(operation: OperationRecord, failures: FailureRecord[]): OperationDto {
  return {
    id: operation.id,
    action: operation.action,
    status: operation.status,
    matched: operation.matched,
    done: operation.done,
    failed: operation.failed,
    workflowId: operation.workflowId,
    failures: failures.map((failure) => ({ ...failure, at: failure.at.toISOString() })),
    createdAt: operation.createdAt.toISOString(),
    updatedAt: operation.updatedAt.toISOString(),
    finishedAt: operation.finishedAt?.toISOString() ?? null,
  };
}
