import {
  type CounterSeries,
  DomainException,
  HotCounter,
  HotHistogram,
  type HistogramSeries,
  isErrorCode,
  REQUEST_SECONDS_BUCKETS,
  secondsSince,
} from '#common';
import type { RpcEnvelope } from '#contracts';

/**
 * NATS request/reply, as the caller (`RpcClient`) and as the server (`RpcServer`) sees it. The
 * `subject` label is the catalog entry's subject without the deployment's prefix (`runner.runs.start`):
 * a fixed name per entry, never one carrying an id. `outcome` is `ok` or the contract's error code
 * the request ended with (`not_found`, `service_unavailable` when nobody answered in time, …).
 * Hot-path metrics (`HotCounter`, `HotHistogram`): every request records into them.
 */
const clientRequests = new HotCounter({
  name: 'flowmesh_nats_client_requests_total',
  help: 'NATS requests this process sent, by catalog subject and outcome (ok or the error code).',
  labelNames: ['subject', 'outcome'] as const,
});
const clientSeconds = new HotHistogram({
  name: 'flowmesh_nats_client_request_duration_seconds',
  help: 'Time from sending a NATS request to its reply (or failure), by catalog subject.',
  labelNames: ['subject'] as const,
  buckets: REQUEST_SECONDS_BUCKETS,
});
const handledRequests = new HotCounter({
  name: 'flowmesh_nats_handled_requests_total',
  help: 'NATS requests this process handled, by catalog subject and outcome (ok or the error code).',
  labelNames: ['subject', 'outcome'] as const,
});
const handledSeconds = new HotHistogram({
  name: 'flowmesh_nats_handled_request_duration_seconds',
  help: 'Time a handler took to answer a NATS request, by catalog subject.',
  labelNames: ['subject'] as const,
  buckets: REQUEST_SECONDS_BUCKETS,
});

interface SubjectSeries {
  ok: CounterSeries;
  seconds: HistogramSeries;
}

/** The series of a subject's successes and durations, looked up once per subject. */
function seriesOf(
  cache: Map<string, SubjectSeries>,
  requests: HotCounter<'subject' | 'outcome'>,
  seconds: HotHistogram<'subject'>,
  subject: string,
): SubjectSeries {
  let series = cache.get(subject);
  if (!series) {
    series = { ok: requests.labels(subject, 'ok'), seconds: seconds.labels(subject) };
    cache.set(subject, series);
  }
  return series;
}

const clientSeries = new Map<string, SubjectSeries>();
const handledSeries = new Map<string, SubjectSeries>();

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
  const series = seriesOf(clientSeries, clientRequests, clientSeconds, subject);
  sent.then(
    (envelope) => {
      series.seconds.observe(secondsSince(began));
      if (envelope.ok) series.ok.inc();
      else clientRequests.labels(subject, outcomeOf(envelope.error.code)).inc();
    },
    (error: unknown) => {
      series.seconds.observe(secondsSince(began));
      clientRequests.labels(subject, outcomeOf(error instanceof DomainException ? error.code : null)).inc();
    },
  );
  return sent;
}

/** Counts and times a request a handler answered: `ok`, or the code of the failure envelope it sent. */
export function observeHandled(subject: string, began: number, errorCode?: string): void {
  const series = seriesOf(handledSeries, handledRequests, handledSeconds, subject);
  series.seconds.observe(secondsSince(began));
  if (errorCode === undefined) series.ok.inc();
  else handledRequests.labels(subject, outcomeOf(errorCode)).inc();
}
