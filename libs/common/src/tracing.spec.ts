import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

import {
  activeTraceFields,
  contextOfTraceParent,
  extractTraceContext,
  inSpan,
  injectTraceContext,
  startTracing,
  traceIdOf,
  traceParentOf,
  tracingEnabled,
  type Tracing,
} from './tracing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACE_PARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('tracing helpers', () => {
  describe('off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
    it('starts nothing, runs work without a span and carries no context', async () => {
      const tracing = await startTracing('unit', {});
      expect(tracing.enabled).toBe(false);
      expect(tracingEnabled()).toBe(false);
      await expect(inSpan('work', {}, (span) => Promise.resolve(span))).resolves.toBeUndefined();
      const headers: Record<string, string> = {};
      injectTraceContext((key, value) => (headers[key] = value), contextOfTraceParent(TRACE_PARENT));
      expect(headers).toEqual({});
      expect(extractTraceContext(() => TRACE_PARENT)).toBe(ROOT_CONTEXT);
      expect(activeTraceFields()).toEqual({});
    });
  });

  describe('stored traceparents', () => {
    it('reads the trace id of a traceparent, and null of anything else', () => {
      expect(traceIdOf(TRACE_PARENT)).toBe(TRACE_ID);
      expect(traceIdOf(null)).toBeNull();
      expect(traceIdOf('00-not-a-trace-01')).toBeNull();
      expect(traceIdOf(`01-${TRACE_ID}-${SPAN_ID}-01`)).toBeNull();
    });

    it('makes a context whose parent span is the one stored, and the root context of a bad value', () => {
      expect(trace.getSpanContext(contextOfTraceParent(TRACE_PARENT))).toEqual({
        traceId: TRACE_ID,
        spanId: SPAN_ID,
        traceFlags: 1,
        isRemote: true,
      });
      expect(contextOfTraceParent('garbage')).toBe(ROOT_CONTEXT);
      expect(contextOfTraceParent(null)).toBe(ROOT_CONTEXT);
    });
  });

  describe('on', () => {
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

    beforeEach(() => exporter.reset());

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

    const named = (spans: Awaited<ReturnType<typeof exported>>, name: string) =>
      spans.find((span) => span.name === name);

    it('carries a span across a message: injected as traceparent, extracted as the parent of the next', async () => {
      const headers: Record<string, string> = {};
      const sent = await inSpan('send', {}, (span) => {
        injectTraceContext((key, value) => (headers[key] = value));
        return Promise.resolve(traceParentOf(span));
      });
      expect(headers.traceparent).toBe(sent);
      await inSpan('handle', { parent: extractTraceContext((key) => headers[key]) }, () => Promise.resolve());
      const spans = await exported(2);
      const [send, handle] = [named(spans, 'send'), named(spans, 'handle')];
      expect(handle?.spanContext().traceId).toBe(send?.spanContext().traceId);
      expect(handle?.parentSpanContext?.spanId).toBe(send?.spanContext().spanId);
    });

    it('continues a stored traceparent, or starts a trace of its own linked to it', async () => {
      await inSpan('child', { parent: contextOfTraceParent(TRACE_PARENT) }, () => Promise.resolve());
      await inSpan('root', { parent: contextOfTraceParent(TRACE_PARENT), root: true }, () =>
        Promise.resolve(),
      );
      const spans = await exported(2);
      const [child, root] = [named(spans, 'child'), named(spans, 'root')];
      expect(child?.spanContext().traceId).toBe(TRACE_ID);
      expect(child?.parentSpanContext?.spanId).toBe(SPAN_ID);
      expect(root?.spanContext().traceId).not.toBe(TRACE_ID);
      expect(root?.parentSpanContext).toBeUndefined();
      expect(root?.links.map((link) => link.context.spanId)).toEqual([SPAN_ID]);
    });

    it("names the active span's ids for log lines", async () => {
      expect(activeTraceFields()).toEqual({});
      const [fields, id] = await inSpan('logged', {}, (span) =>
        Promise.resolve([activeTraceFields(), span?.spanContext()] as const),
      );
      expect(fields).toEqual({ traceId: id?.traceId, spanId: id?.spanId });
    });

    it('records a failure on the span and throws it on', async () => {
      await expect(inSpan('fails', {}, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
      const failed = named(await exported(1), 'fails');
      expect(failed?.status).toEqual({ code: 2, message: 'no' });
      expect(failed?.events.map((event) => event.name)).toEqual(['exception']);
    });
  });
});
