import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ApiError, describeError } from '../api/errors';
import { Field } from '../components/ui';
import { StatementResults } from './statement-results';

/** Statements separated by `;` at the end of a line; each runs in order, in one transaction. */
function splitStatements(text: string): string[] {
  return text
    .split(/;\s*(?:\r?\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/** Statements run as one batch in one transaction; each result a table, a failure named by statement. */
export function SqlConsole({ database }: { database: Schemas['DatabaseDto'] }) {
  const [sql, setSql] = useState('');
  const statements = splitStatements(sql);
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
      {run.data ? <StatementResults results={run.data.results} statements={run.variables} /> : null}
    </section>
  );
}
