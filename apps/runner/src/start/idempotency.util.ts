import { createHash } from 'node:crypto';

import type { StartRunRequest } from '#contracts';

/** The parts of a start that an idempotency key stands for: what the caller asked to run, and with what. */
export type FingerprintedRequest = Pick<StartRunRequest, 'workflowId' | 'draft' | 'triggerNodeId' | 'input'>;

/**
 * A hash of the request as the caller sent it: the workflow, `draft`, `triggerNodeId` (absent and
 * null alike) and `input`, exactly. Not `trigger`, which the edge sets rather than the caller. A
 * request that omits `triggerNodeId` differs from one that names the only trigger: the key stands
 * for the request, not for what the runner made of it.
 */
export function requestFingerprint(request: FingerprintedRequest): string {
  const parts = [request.workflowId, request.draft, request.triggerNodeId ?? null, request.input];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export type KeyReuse = 'replay' | 'other_workflow' | 'other_request';

/**
 * What a start does with the run its key already names: answer it again when it is the same
 * request, refuse otherwise. A run recorded before fingerprints existed (null) replays for any
 * request to its workflow, as keys did then.
 */
export function keyReuse(
  earlier: { workflowId: string; fingerprint: string | null },
  request: { workflowId: string; fingerprint: string },
): KeyReuse {
  if (earlier.workflowId !== request.workflowId) return 'other_workflow';
  if (earlier.fingerprint !== null && earlier.fingerprint !== request.fingerprint) return 'other_request';
  return 'replay';
}
