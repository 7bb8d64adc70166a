import '../components/attention-list.css';

import { Link } from '@tanstack/react-router';

import type { Schemas } from '../api/client';
import { StatusBadge } from '../components/ui';

/**
 * Connections whose app refused them or could not be reached the last time they were used (an MCP
 * server that is down, a revoked Slack URL), whether or not a trigger uses them. Shown only when there
 * are any: each stays listed until its app answers again, so an empty panel would say nothing.
 */
export function UnhealthyConnections({ connections }: { connections: Schemas['DashboardConnectionDto'][] }) {
  if (connections.length === 0) return null;
  return (
    <section aria-labelledby="unhealthy-connections-title">
      <h2 id="unhealthy-connections-title">Unhealthy connections</h2>
      <ul className="attention-list">
        {connections.map((connection) => (
          <li key={connection.id} className="bad">
            <StatusBadge status="unhealthy" /> <Link to="/connections">{connection.name}</Link>{' '}
            <span className="muted">
              ({connection.integrationId}): its app refused it or could not be reached when last used.
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
