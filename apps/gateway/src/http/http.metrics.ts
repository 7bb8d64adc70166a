import { REQUEST_SECONDS_BUCKETS } from '#common';
import { Counter, Histogram } from 'prom-client';

/**
 * The gateway's HTTP requests. `route` is Fastify's route template (`/api/v1/workflows/:id/runs`),
 * never the URL a client sent, and `unmatched` for a request no route took (a 404, the console's
 * client-side pages): its values are the gateway's routes and nothing else. Every request records
 * into them, through the label children kept below.
 */
const requests = new Counter({
  name: 'flowmesh_http_requests_total',
  help: 'HTTP requests the gateway answered, by route template, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
});
const seconds = new Histogram({
  name: 'flowmesh_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to the end of its answer, by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: REQUEST_SECONDS_BUCKETS,
});

/** The route label of a request: its route's template, or `unmatched`. */
export function routeLabel(routeUrl: string | undefined, is404: boolean): string {
  return is404 || !routeUrl ? 'unmatched' : routeUrl;
}

interface RouteChildren {
  seconds: Histogram.Internal<'route' | 'method'>;
  byStatus: Map<number, Counter.Internal>;
}

/**
 * prom-client's label children by route, then method, then status: `labels(...)` validates and hashes
 * its values, so it runs once per route, method and status; a request builds no string and does only
 * map lookups before its `inc` and `observe`.
 */
const children = new Map<string, Map<string, RouteChildren>>();

/** Counts and times one answered request; called from the gateway's `onResponse` hook. */
export function observeHttpRequest(
  routeUrl: string | undefined,
  is404: boolean,
  method: string,
  status: number,
  elapsedMs: number,
): void {
  const route = routeLabel(routeUrl, is404);
  let byMethod = children.get(route);
  if (!byMethod) children.set(route, (byMethod = new Map()));
  let forRoute = byMethod.get(method);
  if (!forRoute)
    byMethod.set(method, (forRoute = { seconds: seconds.labels(route, method), byStatus: new Map() }));
  let counter = forRoute.byStatus.get(status);
  if (!counter) forRoute.byStatus.set(status, (counter = requests.labels(route, method, String(status))));
  counter.inc();
  forRoute.seconds.observe(elapsedMs / 1000);
}
