import { Link } from '@tanstack/react-router';

import type { Schemas } from '../api/client';
import { Empty, formatTime } from '../components/ui';
import { GATE_NAMES } from '../runs/held.util';

/**
 * Queued runs that flow control holds back (docs/flow-control.md), per workflow, gate and key, most
 * runs first: a limit set too low, or a backlog, shows here before anyone misses a run.
 */
export function HeldRuns({ held }: { held: Schemas['DashboardHeldDto'][] }) {
  return (
    <section aria-labelledby="held-title">
      <h2 id="held-title">Waiting on limits</h2>
      {held.length === 0 ? (
        <Empty>No run is waiting on a limit.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Workflow</th>
                <th scope="col">Waiting for</th>
                <th scope="col">Key</th>
                <th scope="col">Runs</th>
                <th scope="col">Oldest started</th>
              </tr>
            </thead>
            <tbody>
              {held.map((group) => (
                <tr key={`${group.workflowId}-${group.heldBy}-${group.key ?? ''}`}>
                  <td>
                    <Link to="/workflows/$workflowId" params={{ workflowId: group.workflowId }}>
                      {group.workflowName}
                    </Link>
                  </td>
                  <td>{GATE_NAMES[group.heldBy]}</td>
                  <td>
                    {group.key === null ? (
                      <span className="muted">—</span>
                    ) : group.key === '' ? (
                      <span className="muted">none (the whole workflow)</span>
                    ) : (
                      <code>{group.key}</code>
                    )}
                  </td>
                  <td>{group.runs}</td>
                  <td>{formatTime(group.oldestAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
