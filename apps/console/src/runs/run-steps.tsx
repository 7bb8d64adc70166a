import type { Schemas } from '../api/client';
import { Empty, formatDuration, StatusBadge } from '../components/ui';

/** Each step with its input, output and error; the failed and the waiting ones open. */
export function RunSteps({ steps }: { steps: Array<Schemas['RunStepDto']> }) {
  return (
    <section aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      {steps.length === 0 ? <Empty>No step has started yet.</Empty> : null}
      {steps.map((step) => (
        <details
          key={step.nodeId}
          className="card"
          open={step.status === 'error' || step.status === 'waiting'}
        >
          <summary>
            <strong>{step.nodeId}</strong> <StatusBadge status={step.status} />{' '}
            <span className="muted">{formatDuration(step.ms)}</span>
          </summary>
          {step.error ? (
            <div className="notice error">
              <strong>Error:</strong> {step.error}
            </div>
          ) : null}
          <h3>Input</h3>
          {step.input ? <pre>{step.input}</pre> : <p className="muted">None.</p>}
          <h3>Output</h3>
          {step.output && Object.keys(step.output).length > 0 ? (
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
