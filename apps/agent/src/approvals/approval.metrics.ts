import { Gauge } from 'prom-client';

/**
 * Approvals waiting for an owner or admin, read from the agent's database by `ApprovalGauges`. Every
 * agent replica reports the same counts: aggregate with `max`, not `sum`.
 */
export const pendingApprovals = new Gauge({
  name: 'flowmesh_approvals_pending',
  help: 'Approvals waiting for a decision (not yet expired).',
});
export const expiringApprovals = new Gauge({
  name: 'flowmesh_approvals_expiring',
  help: 'Pending approvals that expire within the window (1h or 24h) unless someone decides them.',
  labelNames: ['within'] as const,
});

/** The windows of `flowmesh_approvals_expiring`, in seconds by label. */
export const EXPIRY_WINDOWS = { '1h': 3_600, '24h': 86_400 } as const;
