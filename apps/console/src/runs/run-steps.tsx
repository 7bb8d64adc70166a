import './run-steps.css';

import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import type { Schemas } from '../api/client';
import { Empty, formatDuration, StatusBadge } from '../components/ui';
import { stepAnchor } from './child-runs.util';
import { LoopIterations } from './loop-iterations';
import { stepKey } from './run-control.util';

type Step = Schemas['RunStepDto'];

/**
 * Each step with its input, output and error (or that retention trimmed them); the failed and the
 * waiting ones open. A compensation reads "undo <node>"; a step a rerun carried over names the run it
 * came from; a `workflow` step links to the child run it started (`childRuns`, by node id); a `loop`
 * step lists its iterations (`loops`) once it is open.
 */
export function RunSteps({
  steps,
  childRuns = new Map(),
  loops,
}: {
  steps: Step[];
  childRuns?: ReadonlyMap<string, string>;
  /** The run's loop steps (not an iteration's own start), whose iterations are listed. */
  loops?: { runId: string; nodeIds: ReadonlySet<string>; going: boolean };
}) {
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  return (
    <section aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      {steps.length === 0 ? <Empty>No step has started yet.</Empty> : null}
      {steps.map((step) => (
        <details
          key={stepKey(step)}
          className={`card step${step.compensation ? ' compensation' : ''}${step.carriedFrom ? ' carried' : ''}`}
          open={step.status === 'error' || step.status === 'waiting'}
          data-testid={`step-${stepKey(step)}`}
          id={step.compensation ? undefined : stepAnchor(step.nodeId)}
          onToggle={(event) => {
            const open = event.currentTarget.open;
            setOpened((current) => {
              const next = new Set(current);
              if (open) next.add(stepKey(step));
              else next.delete(stepKey(step));
              return next;
            });
          }}
        >
          <summary>
            <StepName step={step} /> <StatusBadge status={step.status} />{' '}
            <span className="muted">{formatDuration(step.ms)}</span>
            {step.carriedFrom ? (
              // A link inside a summary is a control inside a control: the link waits in the body.
              <span className="carried-from"> carried over from run {step.carriedFrom.slice(-8)}</span>
            ) : null}
          </summary>
          {step.carriedFrom ? (
            <p>
              Not executed again: carried over with its output from{' '}
              <Link to="/runs/$runId" params={{ runId: step.carriedFrom }}>
                run {step.carriedFrom.slice(-8)}
              </Link>
              .
            </p>
          ) : null}
          {step.compensation ? null : <ChildRunLink runId={childRuns.get(step.nodeId)} />}
          {loops && !step.compensation && loops.nodeIds.has(step.nodeId) && opened.has(stepKey(step)) ? (
            <LoopIterations runId={loops.runId} nodeId={step.nodeId} going={loops.going} />
          ) : null}
          {step.compensation ? (
            <p className="muted">
              The compensation that undid the done step <code>{step.nodeId}</code> while the run rolled back.
            </p>
          ) : null}
          {step.error ? (
            <div className="notice error">
              <strong>Error:</strong> {step.error}
            </div>
          ) : null}
          <h3>Input</h3>
          {step.trimmed ? <Trimmed /> : step.input ? <pre>{step.input}</pre> : <p className="muted">None.</p>}
          <h3>Output</h3>
          {step.trimmed ? (
            <Trimmed />
          ) : step.output && Object.keys(step.output).length > 0 ? (
            <dl>
              {Object.entries(step.output).map(([field, value]) => (
                <div key={field}>
                  <dt>
                    <code>{field}</code>
                  </dt>
                  <dd>
                    <pre>{value}</pre>
                  </dd>
                </div>
              ))}
            </dl>
          ) : (
            <p className="muted">None.</p>
          )}
        </details>
      ))}
    </section>
  );
}

/** Where retention dropped a step's payload: not "None", which would say the step had none. */
function Trimmed() {
  return <p className="muted">Trimmed by retention.</p>;
}

/** The child run a `workflow` step started, linked; nothing for any other step. */
function ChildRunLink({ runId }: { runId: string | undefined }) {
  if (runId === undefined) return null;
  return (
    <p>
      Runs its workflow as{' '}
      <Link to="/runs/$runId" params={{ runId }}>
        child run {runId.slice(-8)}
      </Link>
      .
    </p>
  );
}

/** A step's node, or "undo <node>" for a compensation. */
export function StepName({ step }: { step: Pick<Step, 'nodeId' | 'compensation'> }) {
  return step.compensation ? (
    <strong className="undo">undo {step.nodeId}</strong>
  ) : (
    <strong>{step.nodeId}</strong>
  );
}

/** The run a rerun carried a step over from, linked. */
export function CarriedFrom({ runId }: { runId: string }) {
  return (
    <span className="carried-from">
      {' '}
      carried over from{' '}
      <Link to="/runs/$runId" params={{ runId }}>
        run {runId.slice(-8)}
      </Link>
    </span>
  );
}
