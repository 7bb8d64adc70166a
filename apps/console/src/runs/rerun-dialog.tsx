import { useState } from 'react';

import type { Schemas } from '../api/client';
import { Dialog } from '../components/dialog';
import { ErrorNotice, Field } from '../components/ui';
import { type RerunFrom, rerunStarts } from './run-control.util';

type Run = Schemas['WorkflowRunDto'];

/**
 * Where a rerun starts: the first failed step (the whole run again when none failed), a step of the
 * run (the steps that do not depend on it are carried over, not executed again), or the trigger
 * with a new input.
 */
export function RerunDialog({
  run,
  pending,
  error,
  onRerun,
  onClose,
}: {
  run: Run;
  pending: boolean;
  error: unknown;
  onRerun: (from: RerunFrom) => void;
  onClose: () => void;
}) {
  const starts = rerunStarts(run.steps);
  const failed = run.steps.find((step) => step.status === 'error' && !step.compensation);
  const [kind, setKind] = useState<RerunFrom['kind']>(failed ? 'failure' : 'step');
  const [nodeId, setNodeId] = useState(failed?.nodeId ?? starts[0] ?? '');
  const [input, setInput] = useState(run.input);
  const from: RerunFrom =
    kind === 'failure' ? { kind } : kind === 'step' ? { kind, nodeId } : { kind, input };
  return (
    <Dialog title="Rerun" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onRerun(from);
        }}
      >
        <p>
          A new run of the same {run.version === null ? 'draft' : `version (v${run.version})`}. The steps that
          do not depend on where it starts are carried over with their outputs and not executed again.
        </p>
        <fieldset>
          <legend>Start</legend>
          <label className="check">
            <input
              type="radio"
              name="rerun-from"
              checked={kind === 'failure'}
              onChange={() => setKind('failure')}
            />
            {failed
              ? `From the first failure (${failed.nodeId})`
              : 'From the first failure (none failed: the whole run)'}
          </label>
          <label className="check">
            <input
              type="radio"
              name="rerun-from"
              checked={kind === 'step'}
              onChange={() => setKind('step')}
            />
            From a step
          </label>
          {kind === 'step' ? (
            <Field label="Step">
              {(id) => (
                <select id={id} value={nodeId} onChange={(event) => setNodeId(event.target.value)}>
                  {starts.map((start) => (
                    <option key={start} value={start}>
                      {start}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          ) : null}
          <label className="check">
            <input
              type="radio"
              name="rerun-from"
              checked={kind === 'input'}
              onChange={() => setKind('input')}
            />
            From the trigger with a new input
          </label>
          {kind === 'input' ? (
            <Field
              label="New input"
              hint="The trigger's payload: JSON is readable in steps as {{trigger.<path>}}."
            >
              {(id) => (
                <textarea
                  id={id}
                  className="code"
                  value={input}
                  onChange={(event) => setInput(event.target.value)}
                />
              )}
            </Field>
          ) : null}
        </fieldset>
        <ErrorNotice error={error} title="Could not rerun." />
        <div className="row" style={{ marginTop: '1rem' }}>
          <button type="submit" disabled={pending || (kind === 'step' && nodeId === '')}>
            {pending ? 'Starting…' : 'Rerun'}
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
    </Dialog>
  );
}
