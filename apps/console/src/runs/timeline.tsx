import './timeline.css';

import type { Schemas } from '../api/client';
import { Empty, formatDuration, StatusBadge } from '../components/ui';

type Run = Schemas['WorkflowRunDto'];

/** Each step as a bar from its start, as long as it took, on the run's own clock. */
export function Timeline({ run }: { run: Run }) {
  if (run.steps.length === 0) return <Empty>Nothing to show yet.</Empty>;
  const begin = Math.min(...run.steps.map((step) => Date.parse(step.startedAt)));
  const now = Date.now();
  const ends = run.steps.map(
    (step) => Date.parse(step.startedAt) + (step.ms ?? Math.max(0, now - Date.parse(step.startedAt))),
  );
  const total = Math.max(1, Math.max(...ends) - begin);
  return (
    <ol className="timeline card">
      {run.steps.map((step) => {
        const start = Date.parse(step.startedAt) - begin;
        const length = step.ms ?? Math.max(0, now - Date.parse(step.startedAt));
        return (
          <li key={step.nodeId}>
            <span>
              {step.nodeId} <StatusBadge status={step.status} />
            </span>
            <span className="track" aria-hidden="true">
              <span
                className="span"
                style={{
                  left: `${(start / total) * 100}%`,
                  width: `${Math.max(0.5, (length / total) * 100)}%`,
                }}
              />
            </span>
            <span>{formatDuration(step.ms)}</span>
          </li>
        );
      })}
    </ol>
  );
}
