import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

import { waitFor } from './wait.util.js';

/** One span as an OTLP/HTTP JSON export carried it, with the `service.name` of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

/**
 * A test OTLP collector: an HTTP server that takes `POST /v1/traces` as OTLP/HTTP JSON (what
 * `@opentelemetry/exporter-trace-otlp-http` sends) and keeps every span. Point a stack at it with
 * `env` (its endpoint and a short batch delay, so spans arrive within a poll).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request, response) => {
      void receiver.take(request).then(
        (status) => response.writeHead(status, { 'content-type': 'application/json' }).end('{}'),
        () => response.writeHead(400).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** What a process needs to export its spans here at once. */
  get env(): Record<string, string> {
    return { OTEL_EXPORTER_OTLP_ENDPOINT: this.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** Polls until `probe` answers something about the spans received so far. */
  waitFor<T>(
    probe: (spans: readonly ReceivedSpan[]) => T | undefined,
    what: string,
    timeoutMs = 20_000,
  ): Promise<T> {
    return waitFor(() => probe(this.spans), { what, timeoutMs });
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async take(request: IncomingMessage): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/traces') return 404;
    const raw = Buffer.concat(chunks);
    const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    this.spans.push(...spansOf(JSON.parse(body.toString('utf8')) as OtlpExport));
    return 200;
  }
}

/** The spans of one OTLP JSON export, flattened. */
export function spansOf(payload: OtlpExport): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of payload.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          service: String(resource['service.name'] ?? ''),
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
  return spans;
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}
