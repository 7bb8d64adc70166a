import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, unwrap } from '../../../api/client';
import { ErrorNotice, Field, formatTime, PageHeader, QueryView } from '../../../components/ui';

export const Route = createFileRoute('/_signed-in/databases/')({ component: DatabasesPage });

function DatabasesPage() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const query = useQuery({
    queryKey: ['databases'],
    queryFn: () => unwrap(api.GET('/api/v1/databases', { params: { query: { limit: 100 } } })),
  });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/databases', { body: { name, description } })),
    onSuccess: () => {
      setName('');
      setDescription('');
      void client.invalidateQueries({ queryKey: ['databases'] });
    },
  });
  return (
    <>
      <PageHeader title="Databases" />
      <form
        className="card"
        aria-label="New database"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <div className="grid-2">
          <Field label="Name" hint="Lowercase letters, numbers and single hyphens.">
            {(id) => (
              <input
                id={id}
                value={name}
                required
                maxLength={64}
                pattern="[a-z0-9]+(-[a-z0-9]+)*"
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </Field>
          <Field label="Description">
            {(id) => (
              <input
                id={id}
                value={description}
                maxLength={1024}
                onChange={(e) => setDescription(e.target.value)}
              />
            )}
          </Field>
        </div>
        <button type="submit" disabled={create.isPending}>
          Create database
        </button>
      </form>
      <ErrorNotice error={create.error} title="Could not create the database." />
      <QueryView query={query} isEmpty={(page) => page.data.length === 0} empty="No databases yet.">
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((database) => (
                  <tr key={database.id}>
                    <td>
                      <Link to="/databases/$databaseId" params={{ databaseId: database.id }}>
                        {database.name}
                      </Link>
                    </td>
                    <td>{database.description}</td>
                    <td>{formatTime(database.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </>
  );
}
