import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, statusLabel } from '../components/ui';
import { OperationProgress } from '../operations/operation-progress';
import { instantOf } from '../runs/run-filter';

type Outcome = NonNullable<Schemas['ReplayEventsDto']['outcome']>;
const OUTCOMES: readonly Outcome[] = ['error', 'limit_reached', 'no_listener', 'dead', 'started'];

/**
 * Replays a trigger's stored events by outcome and time (`POST /workflows/{id}/events/replay`), then
 * follows the operation. An event that already started a run for the trigger starts nothing new.
 */
export function ReplayEvents({ workflowId, triggers }: { workflowId: string; triggers: string[] }) {
  const [triggerNodeId, setTriggerNodeId] = useState(triggers[0] ?? '');
  const [outcome, setOutcome] = useState<Outcome | ''>('error');
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const replay = useMutation({
    mutationFn: () => {
      const [from, until] = [instantOf(after), instantOf(before)];
      return unwrap(
        api.POST('/api/v1/workflows/{id}/events/replay', {
          params: { path: { id: workflowId } },
          body: {
            triggerNodeId,
            ...(outcome ? { outcome } : {}),
            ...(from ? { after: from } : {}),
            ...(until ? { before: until } : {}),
          },
        }),
      );
    },
  });
  if (triggers.length === 0) return null;
  return (
    <form
      className="card"
      aria-label="Replay many events"
      onSubmit={(event) => {
        event.preventDefault();
        replay.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>Replay many</h2>
      <div className="row">
        <label htmlFor="replay-trigger">Trigger</label>
        <select
          id="replay-trigger"
          value={triggerNodeId}
          onChange={(event) => setTriggerNodeId(event.target.value)}
        >
          {triggers.map((trigger) => (
            <option key={trigger} value={trigger}>
              {trigger}
            </option>
          ))}
        </select>
        <label htmlFor="replay-outcome">Outcome</label>
        <select
          id="replay-outcome"
          value={outcome}
          onChange={(event) => setOutcome(event.target.value as Outcome | '')}
        >
          <option value="">Any</option>
          {OUTCOMES.map((value) => (
            <option key={value} value={value}>
              {statusLabel(value)}
            </option>
          ))}
        </select>
        <label htmlFor="replay-after">Received from</label>
        <input
          id="replay-after"
          type="datetime-local"
          value={after}
          onChange={(event) => setAfter(event.target.value)}
        />
        <label htmlFor="replay-before">until</label>
        <input
          id="replay-before"
          type="datetime-local"
          value={before}
          onChange={(event) => setBefore(event.target.value)}
        />
        <button type="submit" disabled={replay.isPending || triggerNodeId === ''}>
          Replay matching events
        </button>
      </div>
      <ErrorNotice error={replay.error} title="Could not replay the events." />
      {replay.data ? <OperationProgress key={replay.data.id} first={replay.data} /> : null}
    </form>
  );
}
