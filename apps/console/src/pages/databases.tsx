import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ApiError, describeError } from '../api/errors';
import { Empty, ErrorNotice, Field, formatTime, PageHeader, QueryView } from '../components/ui';
import { databaseRoute } from '../router';

type Database = Schemas['DatabaseDto'];

export function DatabasesPage() {
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

export function DatabasePage() {
  const { databaseId } = databaseRoute.useParams();
  const query = useQuery({
    queryKey: ['database', databaseId],
    queryFn: () => unwrap(api.GET('/api/v1/databases/{id}', { params: { path: { id: databaseId } } })),
  });
  return <QueryView query={query}>{(database) => <DatabaseView database={database} />}</QueryView>;
}

/** Statements separated by `;` at the end of a line; each runs in order, in one transaction. */
function splitStatements(text: string): string[] {
  return text
    .split(/;\s*(?:\r?\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

function DatabaseView({ database }: { database: Database }) {
  const client = useQueryClient();
  const [name, setName] = useState(database.name);
  const [description, setDescription] = useState(database.description);
  const [sql, setSql] = useState('');
  const statements = splitStatements(sql);
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
  const run = useMutation({
    mutationFn: (batch: string[]) =>
      unwrap(
        api.POST('/api/v1/databases/{id}/query', {
          params: { path: { id: database.id } },
          body: { statements: batch.map((statement) => ({ sql: statement, params: [] })) },
        }),
      ),
  });
  const failedIndex =
    run.error instanceof ApiError && typeof run.error.details.statementIndex === 'number'
      ? run.error.details.statementIndex
      : null;
  return (
    <>
      <PageHeader title={`Database ${database.name}`} />
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
      <section className="card" aria-labelledby="sql-title">
        <h2 id="sql-title" style={{ marginTop: 0 }}>
          SQL console
        </h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            run.mutate(statements);
          }}
        >
          <Field
            label="Statements"
            hint="End each statement with ; and a new line. The batch runs in one transaction: the first failure rolls it all back."
          >
            {(id) => (
              <textarea
                id={id}
                className="code"
                rows={8}
                value={sql}
                onChange={(e) => setSql(e.target.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                    event.preventDefault();
                    run.mutate(statements);
                  }
                }}
              />
            )}
          </Field>
          <button type="submit" disabled={run.isPending || statements.length === 0}>
            {run.isPending
              ? 'Running…'
              : `Run ${statements.length} statement${statements.length === 1 ? '' : 's'}`}
          </button>{' '}
          <span className="muted">Ctrl+Enter runs the batch.</span>
        </form>
        {run.error ? (
          <div className="notice error" role="alert">
            <strong>
              {failedIndex === null
                ? 'The batch failed.'
                : `Statement ${failedIndex + 1} failed; nothing was kept.`}
            </strong>{' '}
            {describeError(run.error)}
            {failedIndex !== null && run.variables?.[failedIndex] ? (
              <pre>{run.variables[failedIndex]}</pre>
            ) : null}
          </div>
        ) : null}
        {run.data
          ? run.data.results.map((result, index) => (
              <div key={index}>
                <h3>
                  Statement {index + 1}{' '}
                  <span className="muted">
                    · {result.rows.length} row{result.rows.length === 1 ? '' : 's'} · read{' '}
                    {result.meta.rowsRead} · written {result.meta.rowsWritten}
                  </span>
                </h3>
                <pre className="muted">{run.variables[index]}</pre>
                {result.columns.length === 0 ? (
                  <Empty>No rows returned.</Empty>
                ) : (
                  <div className="table-wrap" tabIndex={0}>
                    <table aria-label={`Result of statement ${index + 1}`}>
                      <thead>
                        <tr>
                          {result.columns.map((column) => (
                            <th scope="col" key={column}>
                              {column}
                            </th>
                          ))}
                        </tr>
                      </thead>
                      <tbody>
                        {result.rows.map((row, rowIndex) => (
                          <tr key={rowIndex}>
                            {row.map((cell, cellIndex) => (
                              <td key={cellIndex}>
                                {cell === null ? (
                                  <span className="muted">null</span>
                                ) : typeof cell === 'object' ? (
                                  JSON.stringify(cell)
                                ) : (
                                  String(cell)
                                )}
                              </td>
                            ))}
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              </div>
            ))
          : null}
      </section>
    </>
  );
}
