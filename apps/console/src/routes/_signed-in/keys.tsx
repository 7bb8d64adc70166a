import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import { browserRequest } from '../../api/browser-client';
import { managesOrganization, useMember } from '../../auth/session';
import {
  Empty,
  ErrorNotice,
  Field,
  formatTime,
  PageHeader,
  QueryView,
  SecretOnce,
} from '../../components/ui';

/** Organization keys: owners and admins make and revoke them; the key is shown once. */
export const Route = createFileRoute('/_signed-in/keys')({ component: KeysPage });

function KeysPage() {
  const member = useMember();
  if (!managesOrganization(member.role)) {
    return (
      <>
        <PageHeader title="API keys" />
        <Empty>Only the organization&apos;s owners and admins manage its API keys.</Empty>
      </>
    );
  }
  return <Keys />;
}

function Keys() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => browserRequest('GET /app/keys') });
  const create = useMutation({
    mutationFn: (keyName: string) => browserRequest('POST /app/keys', { body: { name: keyName } }),
    onSuccess: () => {
      setName('');
      void client.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => browserRequest('DELETE /app/keys/{id}', { path: { id } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <>
      <PageHeader title="API keys" />
      <p className="muted">
        Keys call the API (<a href="/docs/api">reference</a>) as the organization, with the admin role:{' '}
        <code>Authorization: Bearer fm_…</code>.
      </p>
      <form
        className="card row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(name);
        }}
      >
        <Field label="Name of the new key">
          {(id) => (
            <input
              id={id}
              value={name}
              required
              maxLength={100}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {create.data ? (
        <SecretOnce label={`Key “${create.data.name ?? ''}” created.`} value={create.data.key} />
      ) : null}
      <ErrorNotice error={create.error} title="Could not create the key." />
      <ErrorNotice error={revoke.error} title="Could not revoke the key." />
      <QueryView query={keys} isEmpty={(page) => page.data.length === 0} empty="No keys yet.">
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Starts with</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Revoke</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name ?? '—'}</td>
                    <td>
                      <code>{key.start ?? ''}…</code>
                    </td>
                    <td>{formatTime(key.createdAt)}</td>
                    <td>{formatTime(key.lastUsedAt)}</td>
                    <td>
                      <button
                        type="button"
                        className="danger"
                        disabled={revoke.isPending}
                        onClick={() => {
                          if (
                            window.confirm(
                              `Revoke ${key.name ?? 'this key'}? Anything using it stops working.`,
                            )
                          )
                            revoke.mutate(key.id);
                        }}
                      >
                        Revoke {key.name ?? ''}
                      </button>
                    </td>
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
