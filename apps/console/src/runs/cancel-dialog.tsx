import { useState } from 'react';

import type { Schemas } from '../api/client';
import { Dialog } from '../components/dialog';
import { ErrorNotice, Field } from '../components/ui';

/**
 * Why the run is cancelled (kept in its error and in each stopped step's message), and whether to undo
 * its done actions first: offered only when an action of its diagram has a `compensate`.
 */
export function CancelDialog({
  canRollBack,
  pending,
  error,
  onCancel,
  onClose,
}: {
  canRollBack: boolean;
  pending: boolean;
  error: unknown;
  onCancel: (body: Schemas['CancelRunDto']) => void;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const [rollback, setRollback] = useState(false);
  return (
    <Dialog title="Cancel the run" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onCancel({ rollback, ...(reason.trim() ? { reason: reason.trim() } : {}) });
        }}
      >
        <p>
          Nothing new starts in it, and the steps running now are stopped: they end with an error naming you
          and your reason.
        </p>
        <Field label="Reason" hint="Optional, up to 1,000 characters.">
          {(id) => (
            <textarea
              id={id}
              maxLength={1000}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          )}
        </Field>
        {canRollBack ? (
          <label className="check">
            <input
              type="checkbox"
              checked={rollback}
              onChange={(event) => setRollback(event.target.checked)}
            />
            Roll back: undo the done actions first, newest first
          </label>
        ) : null}
        <ErrorNotice error={error} title="Could not cancel the run." />
        <div className="row" style={{ marginTop: '1rem' }}>
          <button type="submit" className="danger" disabled={pending}>
            {pending ? 'Cancelling…' : 'Cancel run'}
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            Keep it running
          </button>
        </div>
      </form>
    </Dialog>
  );
}
