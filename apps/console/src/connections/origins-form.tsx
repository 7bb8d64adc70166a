import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { browserRequest } from '../api/browser-client';
import type { Connection } from '../api/browser-routes';
import { ErrorNotice, Field, SaveOrCancel } from '../components/ui';

export const ORIGINS_HINT =
  'Scheme, host and port, such as https://api.example.com, separated by spaces. Requests to other ' +
  'origins, and redirects to them, go without the headers.';

/** Origins as typed: separated by spaces, commas or lines. */
export const originsOf = (text: string) => text.split(/[\s,]+/).filter((origin) => origin !== '');

/** Owners and admins: where an http connection's headers may go. */
export function OriginsForm({ connection, onDone }: { connection: Connection; onDone: () => void }) {
  const [origins, setOrigins] = useState((connection.allowedOrigins ?? []).join(' '));
  const save = useMutation({
    mutationFn: () =>
      browserRequest('PATCH /app/connections/{id}', {
        path: { id: connection.id },
        body: { allowedOrigins: originsOf(origins) },
      }),
    onSuccess: onDone,
  });
  return (
    <form
      className="card"
      aria-label={`Origins of ${connection.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Field label={`Origins the headers of ${connection.name} may be sent to`} hint={ORIGINS_HINT}>
        {(id) => (
          <input id={id} value={origins} required onChange={(event) => setOrigins(event.target.value)} />
        )}
      </Field>
      <ErrorNotice error={save.error} title="Could not save the origins." />
      <SaveOrCancel label="Save origins" pending={save.isPending} onCancel={onDone} />
    </form>
  );
}
