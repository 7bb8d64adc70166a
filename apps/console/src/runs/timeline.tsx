import './timeline.css';

import type { Schemas } from '../api/client';
import { Empty, formatDuration, StatusBadge } from '../components/ui';
import { stepKey } from './run-control.util';
import { CarriedFrom, StepName } from './run-steps';

type Run = Schemas['WorkflowRunDto'];
type Step = Schemas['RunStepDto'];

/**
 * Each step as a bar from its start, as long as it took, on the run's own clock. A step a rerun carried
 * over ran in the old run, on its clock: it is marked, without a bar. A compensation's bar is striped.
 */
export function Timeline({ run }: { run: Run }) {
  if (run.steps.length === 0) return <Empty>Nothing to show yet.</Empty>;
  const now = Date.now();
  const lengthOf = (step: Step) => step.ms ?? Math.max(0, now - Date.parse(step.startedAt));
  const ran = run.steps.filter((step) => !step.carriedFrom);
  const begin = Math.min(...ran.map((step) => Date.parse(step.startedAt)));
  const total = Math.max(
    1,
    Math.max(...ran.map((step) => Date.parse(step.startedAt) + lengthOf(step))) - begin,
  );
  return (
    <ol className="timeline card">
      {run.steps.map((step) => (
        <li key={stepKey(step)}>
          <span>
            <StepName step={step} /> <StatusBadge status={step.status} />
          </span>
          {step.carriedFrom ? (
            <span className="carried-note">
              <CarriedFrom runId={step.carriedFrom} />
            </span>
          ) : (
            <span className="track" aria-hidden="true">
              <span
                className={step.compensation ? 'span undo' : 'span'}
                style={{
                  left: `${((Date.parse(step.startedAt) - begin) / total) * 100}%`,
                  width: `${Math.max(0.5, (lengthOf(step) / total) * 100)}%`,
                }}
              />
            </span>
          )}
          <span>{step.carriedFrom ? '' : formatDuration(step.ms)}</span>
        </li>
      ))}
    </ol>
  );
}
