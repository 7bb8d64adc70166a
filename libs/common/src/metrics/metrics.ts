import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { collectDefaultMetrics, register } from 'prom-client';

/**
 * Every metric of a process is on prom-client's default `register`: one per process, so the apps the
 * all-in-one launcher runs side by side share it and one `/metrics` shows them all. Each metric
 * family is defined once, at module scope, in one `*.metrics.ts` file (docs/observability.md lists
 * them); a module is loaded once per process however many apps import it, so nothing registers twice.
 */
let collectingProcessMetrics = false;

/**
 * The process's own metrics (`process_*`, `nodejs_*`: CPU, memory, event loop lag, GC), under the
 * names every Node.js dashboard expects. Called by whatever serves `/metrics`; once per process.
 */
export function collectProcessMetrics(): void {
  if (collectingProcessMetrics) return;
  collectingProcessMetrics = true;
  collectDefaultMetrics();
}

/** The text exposition format's content type, `text/plain; version=0.0.4`. */
export const METRICS_CONTENT_TYPE = register.contentType;

/** Answers a scrape with every metric of the process. */
export function sendMetrics(response: ServerResponse): void {
  register.metrics().then(
    (text) =>
      response
        .writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' })
        .end(text),
    (error: unknown) =>
      response
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(`Could not collect the metrics: ${String(error)}\n`),
  );
}

export interface MetricsServer {
  /** `http://<host>:<port>`, the port the server took (the one asked for, or a free one for 0). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A server of its own for `/metrics` (the gateway's `METRICS_PORT`): scrapes reach it without going
 * near the public port, its limits or its credentials, and the public port never shows them.
 */
export async function serveMetrics(port: number, host: string): Promise<MetricsServer> {
  collectProcessMetrics();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves /metrics\n');
    } else if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else sendMetrics(response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Seconds since `began` (a `performance.now()` reading), for a `_seconds` histogram. */
export const secondsSince = (began: number): number => (performance.now() - began) / 1000;

/**
 * Histogram buckets, in seconds. Requests: 1 ms to 10 s, where the API's latencies live. Steps: 1 ms
 * (a condition) to 30 min (an agent that thinks long). Runs: 10 ms to a day (runs that wait).
 */
export const REQUEST_SECONDS_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
export const STEP_SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800];
export const RUN_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400];
