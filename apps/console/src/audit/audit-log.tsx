import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { organization } from '../auth/organization';
import { Empty, ErrorNotice, Field, formatTime, Loading } from '../components/ui';

const PAGE = 50;
const ACTOR_TYPES = ['member', 'key', 'service'] as const;

/** The filters of `GET /api/v1/audit` (docs/audit.md). */
interface AuditFilter {
  action?: string;
  actorType?: (typeof ACTOR_TYPES)[number];
  resourceType?: string;
  resourceId?: string;
  from?: string;
  to?: string;
}

/** What the form holds: text as typed, times as the browser's local date-time inputs give them. */
interface Typed {
  action: string;
  actorType: string;
  resourceType: string;
  resourceId: string;
  from: string;
  to: string;
}

const EMPTY: Typed = { action: '', actorType: '', resourceType: '', resourceId: '', from: '', to: '' };

/** The API's filter from the form: empty fields are no filter; local times become instants. */
function filterOf(typed: Typed): AuditFilter {
  const text = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const instant = (value: string) => (value === '' ? undefined : new Date(value).toISOString());
  return Object.fromEntries(
    Object.entries({
      action: text(typed.action),
      actorType: text(typed.actorType) as AuditFilter['actorType'],
      resourceType: text(typed.resourceType),
      resourceId: text(typed.resourceId),
      from: instant(typed.from),
      to: instant(typed.to),
    }).filter(([, value]) => value !== undefined),
  ) as AuditFilter;
}

/** The actor in words: a member by their email when they are still a member, else by id. */
function actorOf(entry: Schemas['AuditEntryDto'], emails: ReadonlyMap<string, string>): string {
  if (entry.actor.type === 'service') return 'the service';
  const id = entry.actor.id ?? '';
  if (entry.actor.type === 'member') return emails.get(id) ?? `member ${id}`;
  return `key ${id}`;
}

/** The log, newest first, filtered by the API, a page at a time. */
export function AuditLog() {
  const [typed, setTyped] = useState<Typed>(EMPTY);
  const [filter, setFilter] = useState<AuditFilter>({});
  const query = useInfiniteQuery({
    queryKey: ['audit', filter],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/v1/audit', {
          params: { query: { ...filter, limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  const entries = query.data?.pages.flatMap((page) => page.data) ?? [];
  // The log keeps ids; the members list says whose they are.
  const members = useQuery({ queryKey: ['members'], queryFn: organization.members });
  const emails = new Map((members.data?.members ?? []).map((row) => [row.userId, row.user.email]));
  const input =
    (key: keyof Typed, type = 'text', placeholder?: string) =>
    (id: string) => (
      <input
        id={id}
        type={type}
        value={typed[key]}
        placeholder={placeholder}
        onChange={(event) => setTyped({ ...typed, [key]: event.target.value })}
      />
    );
  return (
    <>
      <p className="muted">
        Every change made by a member, a key or the service, with where it came from. Entries are kept 400
        days unless the operator set <code>AUDIT_RETENTION_DAYS</code>.
      </p>
      <form
        className="card row wrap"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter(filterOf(typed));
        }}
      >
        <Field label="Action">{input('action', 'text', 'workflow.published or run.')}</Field>
        <Field label="Actor">
          {(id) => (
            <select
              id={id}
              value={typed.actorType}
              onChange={(event) => setTyped({ ...typed, actorType: event.target.value })}
            >
              <option value="">Anyone</option>
              {ACTOR_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Resource type">{input('resourceType', 'text', 'workflow')}</Field>
        <Field label="Resource id">{input('resourceId')}</Field>
        <Field label="From">{input('from', 'datetime-local')}</Field>
        <Field label="To">{input('to', 'datetime-local')}</Field>
        <button type="submit">Filter</button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setTyped(EMPTY);
            setFilter({});
          }}
        >
          Clear
        </button>
      </form>
      {query.isPending ? <Loading /> : null}
      <ErrorNotice error={query.error} title="Could not load the audit log." />
      {query.isSuccess && entries.length === 0 ? <Empty>No changes match these filters.</Empty> : null}
      {entries.length > 0 ? (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Resource</th>
                <th scope="col">Actor</th>
                <th scope="col">From</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>{formatTime(entry.at)}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td>
                    {entry.resource.type} {entry.resource.name ?? ''}{' '}
                    <span className="muted">{entry.resource.id.slice(-8)}</span>
                  </td>
                  <td>{actorOf(entry, emails)}</td>
                  <td title={entry.userAgent ?? ''}>{entry.clientAddress ?? '—'}</td>
                  <td>
                    <code>{entry.requestId?.slice(0, 8) ?? '—'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {query.hasNextPage ? (
        <button
          type="button"
          className="secondary"
          disabled={query.isFetchingNextPage}
          onClick={() => void query.fetchNextPage()}
        >
          {query.isFetchingNextPage ? 'Loading…' : 'More entries'}
        </button>
      ) : null}
    </>
  );
}
