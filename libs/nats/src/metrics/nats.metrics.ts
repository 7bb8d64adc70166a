import { DomainException, isErrorCode, REQUEST_SECONDS_BUCKETS, secondsSince } from '#common';
import type { RpcEnvelope } from '#contracts';
import { Counter, Histogram } from 'prom-client';

/**
 * NATS request/reply, as the caller (`RpcClient`) and as the server (`RpcServer`) sees it. The
 * `subject` label is the catalog entry's subject without the deployment's prefix (`runner.runs.start`):
 * a fixed name per entry, never one carrying an id. `outcome` is `ok` or the contract's error code
 * the request ended with (`not_found`, `service_unavailable` when nobody answered in time, …).
 * Every request records into them, through the label children kept per subject below.
 */
const clientRequests = new Counter({
  name: 'flowmesh_nats_client_requests_total',
  help: 'NATS requests this process sent, by catalog subject and outcome (ok or the error code).',
  labelNames: ['subject', 'outcome'] as const,
});
const clientSeconds = new Histogram({
  name: 'flowmesh_nats_client_request_duration_seconds',
  help: 'Time from sending a NATS request to its reply (or failure), by catalog subject.',
  labelNames: ['subject'] as const,
  buckets: REQUEST_SECONDS_BUCKETS,
});
const handledRequests = new Counter({
  name: 'flowmesh_nats_handled_requests_total',
  help: 'NATS requests this process handled, by catalog subject and outcome (ok or the error code).',
  labelNames: ['subject', 'outcome'] as const,
});
const handledSeconds = new Histogram({
  name: 'flowmesh_nats_handled_request_duration_seconds',
  help: 'Time a handler took to answer a NATS request, by catalog subject.',
  labelNames: ['subject'] as const,
  buckets: REQUEST_SECONDS_BUCKETS,
});

interface SubjectChildren {
  ok: Counter.Internal;
  seconds: Histogram.Internal<'subject'>;
}

/**
 * prom-client's label children of a subject's successes and durations, made once per subject:
 * `labels(...)` validates and hashes its values, so the hot path keeps what it returned.
 */
function childrenOf(
  cache: Map<string, SubjectChildren>,
  requests: Counter<'subject' | 'outcome'>,
  seconds: Histogram<'subject'>,
  subject: string,
): SubjectChildren {
  let children = cache.get(subject);
  if (!children) {
    children = { ok: requests.labels(subject, 'ok'), seconds: seconds.labels(subject) };
    cache.set(subject, children);
  }
  return children;
}

const clientChildren = new Map<string, SubjectChildren>();
const handledChildren = new Map<string, SubjectChildren>();

/** The outcome label of a failure: a contract error code, so the label's values stay a known set. */
export function outcomeOf(code: unknown): string {
  return isErrorCode(code) ? code : 'internal';
}

/**
 * Counts and times a request the caller sends, without changing what it resolves or rejects with:
 * `RpcClient.request` wraps its call in it.
 */
export function observeRequest<T extends RpcEnvelope<unknown>>(
  subject: string,
  sent: Promise<T>,
): Promise<T> {
  const began = performance.now();
  const children = childrenOf(clientChildren, clientRequests, clientSeconds, subject);
  sent.then(
    (envelope) => {
      children.seconds.observe(secondsSince(began));
      if (envelope.ok) children.ok.inc();
      else clientRequests.labels(subject, outcomeOf(envelope.error.code)).inc();
    },
    (error: unknown) => {
      children.seconds.observe(secondsSince(began));
      clientRequests.labels(subject, outcomeOf(error instanceof DomainException ? error.code : null)).inc();
    },
  );
  return sent;
}

/** Counts and times a request a handler answered: `ok`, or the code of the failure envelope it sent. */
export function observeHandled(subject: string, began: number, errorCode?: string): void {
  const children = childrenOf(handledChildren, handledRequests, handledSeconds, subject);
  children.seconds.observe(secondsSince(began));
  if (errorCode === undefined) children.ok.inc();
  else handledRequests.labels(subject, outcomeOf(errorCode)).inc();
}
