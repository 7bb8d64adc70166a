import {
  type CounterSeries,
  HotCounter,
  HotHistogram,
  type HistogramSeries,
  REQUEST_SECONDS_BUCKETS,
} from '#common';

/**
 * The gateway's HTTP requests. `route` is Fastify's route template (`/api/v1/workflows/:id/runs`),
 * never the URL a client sent, and `unmatched` for a request no route took (a 404, the console's
 * client-side pages): its values are the gateway's routes and nothing else. Hot-path metrics
 * (`HotCounter`, `HotHistogram`): every request records into them.
 */
const requests = new HotCounter({
  name: 'flowmesh_http_requests_total',
  help: 'HTTP requests the gateway answered, by route template, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
});
const seconds = new HotHistogram({
  name: 'flowmesh_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to the end of its answer, by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: REQUEST_SECONDS_BUCKETS,
});

/** The route label of a request: its route's template, or `unmatched`. */
export function routeLabel(routeUrl: string | undefined, is404: boolean): string {
  return is404 || !routeUrl ? 'unmatched' : routeUrl;
}

interface RouteSeries {
  seconds: HistogramSeries;
  byStatus: Map<number, CounterSeries>;
}

/** Series by route, then method, then status: no string is built per request, only map lookups. */
const series = new Map<string, Map<string, RouteSeries>>();

/** Counts and times one answered request; called from the gateway's `onResponse` hook. */
export function observeHttpRequest(
  routeUrl: string | undefined,
  is404: boolean,
  method: string,
  status: number,
  elapsedMs: number,
): void {
  const route = routeLabel(routeUrl, is404);
  let byMethod = series.get(route);
  if (!byMethod) series.set(route, (byMethod = new Map()));
  let forRoute = byMethod.get(method);
  if (!forRoute)
    byMethod.set(method, (forRoute = { seconds: seconds.labels(route, method), byStatus: new Map() }));
  let counter = forRoute.byStatus.get(status);
  if (!counter) forRoute.byStatus.set(status, (counter = requests.labels(route, method, String(status))));
  counter.inc();
  forRoute.seconds.observe(elapsedMs / 1000);
}
