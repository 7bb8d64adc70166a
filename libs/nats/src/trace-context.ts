import {
  type Context,
  extractTraceContext,
  inSpan,
  injectTraceContext,
  SERVICE_ATTRIBUTE,
  type Span,
  SpanKind,
} from '#common';
import type { MsgHdrs } from '@nats-io/transport-node';

/**
 * W3C trace context in NATS message headers (`traceparent`, `tracestate`), and the spans of a message
 * sent and handled: what RpcClient and RpcServer, the query stream, the shard calls and the job queue
 * share (docs/tracing.md). Each is a no-op while tracing is off.
 */

/** Writes the active trace context (or `from`) into a message's headers. */
export function injectTraceHeaders(headers: MsgHdrs, from?: Context): void {
  injectTraceContext((key, value) => headers.set(key, value), from);
}

/** The trace context a received message carries (the root context when it carries none). */
export function traceContextOf(headers: MsgHdrs | undefined): Context {
  return extractTraceContext((key) => headers?.get(key));
}

/** Attributes of a span about a NATS message on `subject`, made by `service` (when known). */
function natsAttributes(subject: string, service: string | undefined, operation: string) {
  return {
    'messaging.system': 'nats',
    'messaging.destination.name': subject,
    'messaging.operation.name': operation,
    ...(service ? { [SERVICE_ATTRIBUTE]: service } : {}),
  };
}

/**
 * A request about to be sent on `subject`: a client span around `work`, which should build its
 * headers inside (so `injectTraceHeaders` carries this span).
 */
export function natsClientSpan<T>(
  subject: string,
  service: string | undefined,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  return inSpan(
    subject,
    { kind: SpanKind.CLIENT, attributes: natsAttributes(subject, service, 'send') },
    work,
  );
}

/** A request received on `subject` with `headers`: a server span, child of the sender's, around `work`. */
export function natsServerSpan<T>(
  subject: string,
  service: string | undefined,
  headers: MsgHdrs | undefined,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  return inSpan(
    subject,
    {
      kind: SpanKind.SERVER,
      parent: traceContextOf(headers),
      attributes: natsAttributes(subject, service, 'process'),
    },
    work,
  );
}
