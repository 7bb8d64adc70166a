import './ui.css';

import type { UseQueryResult } from '@tanstack/react-query';
import { type ReactNode, useId } from 'react';

import { describeError } from '../api/errors';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

/** An API error in words (the code is for branching, never shown raw). */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <div className="notice error" role="alert">
      {title ? <strong>{title} </strong> : null}
      {describeError(error)}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** Loading, error and empty states of a query, then its data. */
export function QueryView<T>({
  query,
  isEmpty,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNotice error={query.error} title="Could not load this." />;
  if (isEmpty?.(query.data)) return <Empty>{empty ?? 'Nothing here yet.'}</Empty>;
  return <>{children(query.data)}</>;
}

const TONE: Record<string, string> = {
  complete: 'ok',
  done: 'ok',
  active: 'ok',
  approved: 'ok',
  started: 'ok',
  healthy: 'ok',
  delivered: 'ok',
  running: 'info',
  queued: 'info',
  waiting: 'warn',
  pending: 'warn',
  paused: 'warn',
  waitingForPause: 'warn',
  rollingBack: 'warn',
  limit_reached: 'warn',
  no_listener: 'muted',
  skipped: 'muted',
  stopped: 'muted',
  unknown: 'muted',
  errored: 'bad',
  error: 'bad',
  denied: 'bad',
  expired: 'bad',
  dead: 'bad',
  terminated: 'bad',
  unhealthy: 'bad',
  failed: 'bad',
};

/** A status in words: `limit_reached` and `waitingForPause` read "limit reached", "waiting for pause". */
export function statusLabel(status: string): string {
  return status
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, (_, lower: string, upper: string) => `${lower} ${upper.toLowerCase()}`);
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${TONE[status] ?? 'muted'}`}>{statusLabel(status)}</span>;
}

export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: string;
  children: (id: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint ? <small className="muted">{hint}</small> : null}
    </div>
  );
}

/** A form's submit button, held while it saves, and its Cancel. */
export function SaveOrCancel({
  label,
  pending,
  onCancel,
}: {
  label: string;
  pending: boolean;
  onCancel: () => void;
}) {
  return (
    <div className="row">
      <button type="submit" disabled={pending}>
        {label}
      </button>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A value shown once (a key, a webhook secret), with a button that copies it. */
export function SecretOnce({
  label,
  value,
  testId = 'secret-value',
}: {
  label: string;
  value: string;
  testId?: string;
}) {
  return <CopyValue label={label} note="It is shown once: copy it now." value={value} testId={testId} />;
}

/** A value to hand on (a key, a secret, an invitation link), with a button that copies it. */
export function CopyValue({
  label,
  note,
  value,
  testId = 'secret-value',
}: {
  label: string;
  note: string;
  value: string;
  testId?: string;
}) {
  return (
    <div className="notice success" role="status">
      <p>
        <strong>{label}</strong> {note}
      </p>
      <code className="secret" data-testid={testId}>
        {value}
      </code>{' '}
      <button type="button" className="secondary" onClick={() => void navigator.clipboard?.writeText(value)}>
        Copy
      </button>
    </div>
  );
}
