import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  propagation,
  type ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TraceFlags,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * OpenTelemetry tracing, by hand at our own seams (docs/tracing.md): the code is ESM built with swc,
 * where the loader hooks of automatic instrumentation do not reach, and the seams (HTTP in the
 * gateway, NATS requests, jobs, steps, SQL batches, model calls) are few.
 *
 * Off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Off, nothing of the SDK is even loaded and every
 * helper below returns before touching the API: `inSpan` calls its function, the carriers write and
 * read nothing. That is the whole cost of tracing when it is off: one boolean test per seam.
 */

export { SpanKind, SpanStatusCode };
export type { Context, Span };

/** The attribute naming the service a span belongs to when several share a process (all-in-one). */
export const SERVICE_ATTRIBUTE = 'flowmesh.service';

let enabled = false;

export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is still buffered and stops; safe to call more than once. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: () => Promise.resolve() };

/**
 * Starts tracing for this process, once, before anything else runs: `serviceName` is the resource's
 * `service.name` (the app, or `flowmesh` for the all-in-one process) unless `OTEL_SERVICE_NAME` names
 * it. Spans go as OTLP/HTTP JSON to `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` is appended), batched
 * (`OTEL_BSP_SCHEDULE_DELAY`, 5 s by default); context travels as W3C `traceparent`.
 */
export async function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
  /** In place of the OTLP exporter: for unit specs, which keep spans in memory. */
  { spanProcessors }: { spanProcessors?: SpanProcessor[] } = {},
): Promise<Tracing> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_SDK_DISABLED === 'true') return OFF;
  // Loaded only when on: the SDK and its exporters are a few megabytes of modules.
  const [{ NodeSDK }, { OTLPTraceExporter }, { W3CTraceContextPropagator }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/core'),
  ]);
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    ...(spanProcessors ? { spanProcessors } : { traceExporter: new OTLPTraceExporter() }),
    textMapPropagator: new W3CTraceContextPropagator(),
    // Traces only: NodeSDK would otherwise also export logs (and metrics, when asked by variables)
    // over OTLP; our metrics are Prometheus' (docs/observability.md) and our logs go to stdout.
    logRecordProcessors: [],
    metricReaders: [],
    instrumentations: [],
  });
  sdk.start();
  enabled = true;
  let stopped: Promise<void> | undefined;
  const shutdown = () => {
    stopped ??= sdk.shutdown().catch(() => undefined);
    return stopped;
  };
  exportOnStop(shutdown);
  return { enabled: true, shutdown };
}

/**
 * A process stopped by a signal exports its spans before it exits: at the signal, what has ended goes
 * at once while the app closes (a standalone service's Nest shutdown hooks then exit by the signal;
 * spans that end during the close are lost). The all-in-one launcher, which exits by itself, calls
 * `shutdown` once its apps have closed. A signal nobody else handles (during start-up) exports, then
 * exits by the signal.
 *
 * The listener goes at the first signal: a process listening to a signal it raises itself (Nest does,
 * once closed) may end with 0 before the signal is handled, since Node's signal watcher keeps nothing
 * alive.
 */
function exportOnStop(shutdown: () => Promise<void>): void {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    for (const one of signals) process.removeListener(one, onSignal);
    if (process.listenerCount(signal) > 0) {
      void flushNow();
      return;
    }
    const exit = () => process.kill(process.pid, signal);
    // Up while the export's own (unreferenced) timers run, for at most 5 s.
    setTimeout(exit, 5_000);
    void shutdown().finally(exit);
  };
  for (const signal of signals) process.on(signal, onSignal);
}

/** Exports the spans that have ended, without stopping. */
function flushNow(): Promise<void> {
  // The global provider is the API's proxy; the SDK's provider, which buffers the spans, is behind it.
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as {
    forceFlush?: () => Promise<void>;
  };
  return (provider.forceFlush?.() ?? Promise.resolve()).catch(() => undefined);
}

/** Whether this process exports spans. */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Whether spans may carry content (prompts, model outputs, SQL text): only when an operator sets
 * `OTEL_RECORD_CONTENT=true`, since traces usually leave the service's trust boundary.
 */
export function recordContent(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.OTEL_RECORD_CONTENT === 'true';
}

const tracer = () => trace.getTracer('flowmesh');

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The span's parent; the active context by default. */
  parent?: Context;
  /** Starts a trace of its own (the parent, if any, becomes a link). */
  root?: boolean;
  links?: Link[];
}

/**
 * Runs `work` inside a new span (the active span for everything it awaits): a thrown error is recorded
 * on it and marks it failed, and the span ends when `work` settles. Off, it is `work(undefined)`.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  // Not async itself: off, the caller gets `work`'s own promise, with no frame or promise added.
  return enabled ? traced(name, options, work) : work(undefined);
}

async function traced<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const span = newSpan(name, options);
  try {
    return await context.with(trace.setSpan(options.parent ?? context.active(), span), () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span the caller ends; undefined when tracing is off. */
export function startSpan(name: string, options: SpanOptions = {}): Span | undefined {
  return enabled ? newSpan(name, options) : undefined;
}

function newSpan(name: string, options: SpanOptions): Span {
  const parent = options.parent ?? context.active();
  const links = [...(options.links ?? [])];
  if (options.root) {
    const from = trace.getSpanContext(parent);
    if (from && isSpanContextValid(from)) links.push({ context: from });
  }
  return tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, root: options.root, links },
    parent,
  );
}

/** Runs `work` with `span` as the active span (as is, when tracing is off or there is no span). */
export function withSpan<T>(span: Span | undefined, work: () => T): T {
  if (!span) return work();
  return context.with(trace.setSpan(context.active(), span), work);
}

/**
 * The active span's ids for a log line (`traceId`, `spanId`), so logs and traces can be joined; none
 * while tracing is off or outside any span.
 */
export function activeTraceFields(): { traceId?: string; spanId?: string } {
  if (!enabled) return {};
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

/** Records an error on a span and marks it failed. */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * Writes the active context (or `from`) into a message's headers: `set` is called with
 * `traceparent` (and `tracestate` when there is one). Nothing is written when tracing is off.
 */
export function injectTraceContext(set: (key: string, value: string) => void, from?: Context): void {
  if (!enabled) return;
  propagation.inject(from ?? context.active(), undefined, {
    set: (_carrier, key, value) => set(key, value),
  });
}

/**
 * The context a message's headers carry (`get` answers a header, or undefined / '' when absent),
 * on top of `base` (the root context by default: a message starts its handling afresh).
 */
export function extractTraceContext(
  get: (key: string) => string | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  if (!enabled) return base;
  return propagation.extract(base, undefined, {
    get: (_carrier, key) => get(key) || undefined,
    keys: () => ['traceparent', 'tracestate'],
  });
}

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A span's context as a W3C `traceparent` value (`00-<trace id>-<span id>-<flags>`), to store where
 * a later process picks the work up (a run's row); null for no span or an invalid one.
 */
export function traceParentOf(span: Span | undefined): string | null {
  const spanContext = span?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return null;
  const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The trace id of a stored `traceparent`, or null. */
export function traceIdOf(traceParent: string | null | undefined): string | null {
  return traceParent ? (TRACE_PARENT.exec(traceParent)?.[1] ?? null) : null;
}

/**
 * A context whose parent span is the one a stored `traceparent` names, so spans made under it join
 * that trace from any process; the root context for null or a malformed value.
 */
export function contextOfTraceParent(traceParent: string | null | undefined): Context {
  const match = traceParent ? TRACE_PARENT.exec(traceParent) : null;
  if (!match) return ROOT_CONTEXT;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) as TraceFlags,
    isRemote: true,
  });
}
