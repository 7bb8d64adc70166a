import { register } from 'prom-client';

import { observeHttpRequest, routeLabel } from './http.metrics.js';

/** The value of one series of a metric, as a scrape would show it. */
async function valueOf(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = await register.getSingleMetric(name)?.get();
  return metric?.values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => String(value.labels[key]) === wanted),
  )?.value;
}

describe('HTTP metrics', () => {
  it('labels a request by its route template, and one no route took as unmatched', () => {
    expect(routeLabel('/api/v1/workflows/:id/runs', false)).toBe('/api/v1/workflows/:id/runs');
    expect(routeLabel(undefined, true)).toBe('unmatched');
    expect(routeLabel(undefined, false)).toBe('unmatched');
    // Fastify's catch-all not-found route carries a url of its own; the request is still a 404.
    expect(routeLabel('*', true)).toBe('unmatched');
  });

  it('counts requests by route, method and status, and times them in seconds', async () => {
    observeHttpRequest('/api/v1/runs/:id', false, 'GET', 200, 12);
    observeHttpRequest('/api/v1/runs/:id', false, 'GET', 200, 30);
    observeHttpRequest('/api/v1/runs/:id', false, 'GET', 404, 3);
    observeHttpRequest(undefined, true, 'GET', 404, 1);
    const route = { route: '/api/v1/runs/:id', method: 'GET' };
    expect(await valueOf('flowmesh_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(await valueOf('flowmesh_http_requests_total', { ...route, status: '404' })).toBe(1);
    expect(await valueOf('flowmesh_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    const count = await register.getSingleMetric('flowmesh_http_request_duration_seconds')?.get();
    const sum = count?.values.find(
      (value) =>
        (value as { metricName?: string }).metricName?.endsWith('_sum') &&
        value.labels.route === '/api/v1/runs/:id',
    );
    expect(sum?.value).toBeCloseTo(0.045, 6);
  });
});
