import { startTracing, type Tracing } from '#common';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

import { injectTraceHeaders, natsClientSpan, natsServerSpan, traceContextOf } from './trace-context.js';

/**
 * W3C trace context in NATS headers: the client span of a request is the parent of the server span
 * that handles it, whatever process reads the headers.
 */
describe('trace context in NATS headers', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;

  beforeAll(async () => {
    tracing = await startTracing(
      'unit',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      { spanProcessors: [new SimpleSpanProcessor(exporter)] },
    );
  });

  afterAll(() => tracing.shutdown());

  /**
   * The spans ended so far, once `count` have been exported: an export waits for the resource's
   * detection, which is asynchronous and slower on a busy machine, so this polls for up to 10 s; the
   * order of export is not the order of ending, so callers pick spans by name or kind.
   */
  async function exported(count: number) {
    const deadline = Date.now() + 10_000;
    while (exporter.getFinishedSpans().length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return exporter.getFinishedSpans();
  }

  it('makes the server span of a request the child of its client span, across the headers', async () => {
    const headers = await natsClientSpan('catalog.projects.get', 'gateway', () => {
      const sent = natsHeaders();
      sent.set('x-request-id', 'r-1');
      injectTraceHeaders(sent);
      return Promise.resolve(sent);
    });
    expect(headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await natsServerSpan('catalog.projects.get', 'catalog', headers, () => Promise.resolve());

    const spans = await exported(2);
    expect(spans).toHaveLength(2);
    const client = spans.find((span) => span.kind === 2 /* SpanKind.CLIENT */);
    const server = spans.find((span) => span.kind === 1 /* SpanKind.SERVER */);
    expect(server?.spanContext().traceId).toBe(client?.spanContext().traceId);
    expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
    expect(server?.attributes).toMatchObject({
      'flowmesh.service': 'catalog',
      'messaging.system': 'nats',
      'messaging.destination.name': 'catalog.projects.get',
    });
  });

  it('starts a trace of its own for a message that carries no context', async () => {
    exporter.reset();
    await natsServerSpan('runner.runs.start', 'runner', natsHeaders(), () => Promise.resolve());
    await natsServerSpan('runner.runs.start', 'runner', undefined, () => Promise.resolve());
    const spans = await exported(2);
    expect(spans.map((span) => span.parentSpanContext)).toEqual([undefined, undefined]);
    expect(traceContextOf(undefined)).toBeDefined();
  });
});
