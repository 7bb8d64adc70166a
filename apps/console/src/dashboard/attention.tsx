import '../components/attention-list.css';

import { Link } from '@tanstack/react-router';

import type { Schemas } from '../api/client';
import { Empty, formatTime, StatusBadge } from '../components/ui';

/**
 * Pending approvals, steps that failed and unhealthy triggers: what needs a member first. Unhealthy
 * connections have a panel of their own below (`UnhealthyConnections`).
 */
export function Attention({ dashboard }: { dashboard: Schemas['DashboardDto'] }) {
  const nothing =
    dashboard.approvals.length === 0 && dashboard.failures.length === 0 && dashboard.triggers.length === 0;
  return (
    <section aria-labelledby="attention-title" className="attention">
      <h2 id="attention-title">Needs attention</h2>
      {nothing ? (
        <Empty>
          {/* Said otherwise when the unhealthy connections below do need someone. */}
          {dashboard.unhealthyConnections.length === 0 ? 'Nothing needs you: no' : 'No'} pending approvals,
          failed steps or unhealthy triggers.
        </Empty>
      ) : (
        <ul className="attention-list">
          {dashboard.approvals.map((approval) => (
            <li key={`${approval.runId}-${approval.tool}`} className="warn">
              <StatusBadge status="pending" /> Approval for <code>{approval.tool}</code> in{' '}
              <Link to="/runs/$runId" params={{ runId: approval.runId }}>
                {approval.workflowName}
              </Link>{' '}
              <span className="muted">expires {formatTime(approval.expiresAt)}</span>
            </li>
          ))}
          {dashboard.failures.map((failure) => (
            <li key={`${failure.runId}-${failure.step}`} className="bad">
              <StatusBadge status="error" /> Step <code>{failure.step}</code> failed in{' '}
              <Link to="/runs/$runId" params={{ runId: failure.runId }}>
                {failure.workflowName}
              </Link>
              {failure.error ? <span className="muted"> — {failure.error}</span> : null}{' '}
              <span className="muted">{formatTime(failure.at)}</span>
            </li>
          ))}
          {dashboard.triggers.map((trigger) => (
            <li key={`${trigger.workflowId}-${trigger.triggerNodeId}`} className="bad">
              <StatusBadge status={trigger.status} /> Trigger <code>{trigger.triggerNodeId}</code> of{' '}
              <Link to="/workflows/$workflowId" params={{ workflowId: trigger.workflowId }}>
                {trigger.workflowName}
              </Link>
              {trigger.error ? <span className="muted"> — {trigger.error}</span> : null}
              {trigger.health ? <span className="muted"> (connection {trigger.health})</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
