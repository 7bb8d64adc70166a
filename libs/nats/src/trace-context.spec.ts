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

  async function exported(count: number) {
    for (let tries = 0; exporter.getFinishedSpans().length < count && tries < 1_000; tries += 1) {
      await new Promise((resolve) => setImmediate(resolve));
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

    const [client, server] = await exported(2);
    expect(client?.kind).toBe(2 /* SpanKind.CLIENT */);
    expect(server?.kind).toBe(1 /* SpanKind.SERVER */);
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
