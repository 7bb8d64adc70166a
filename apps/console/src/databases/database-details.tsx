import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field } from '../components/ui';

/** A database's name and description, saved. */
export function DatabaseDetails({ database }: { database: Schemas['DatabaseDto'] }) {
  const client = useQueryClient();
  const [name, setName] = useState(database.name);
  const [description, setDescription] = useState(database.description);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/databases/{id}', {
          params: { path: { id: database.id } },
          body: { name, description },
        }),
      ),
    onSuccess: (saved) => client.setQueryData(['database', database.id], saved),
  });
  return (
    <form
      className="card"
      aria-label="Database details"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <div className="grid-2">
        <Field label="Name">
          {(id) => <input id={id} value={name} required onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Description">
          {(id) => <input id={id} value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
      </div>
      <button type="submit" className="secondary" disabled={save.isPending}>
        Save details
      </button>
      {save.isSuccess ? <span className="muted"> Saved.</span> : null}
      <ErrorNotice error={save.error} title="Could not save." />
    </form>
  );
}
