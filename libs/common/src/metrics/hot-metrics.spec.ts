import { Counter, Histogram, register } from 'prom-client';

import { HotCounter, HotHistogram } from './hot-metrics.js';

/** The lines of one metric family in the exposition text, with its name replaced for comparison. */
async function familyText(name: string): Promise<string> {
  const metric = register.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  // Untyped in prom-client's declarations: what `register.metrics()` writes for one family.
  const registry = register as unknown as { getMetricsAsString(metric: unknown): Promise<string> };
  return (await registry.getMetricsAsString(metric)).replaceAll(name, 'm');
}

describe('hot-path metrics', () => {
  it('expose a histogram exactly as prom-client would', async () => {
    const buckets = [0.01, 0.1, 1];
    const hot = new HotHistogram({ name: 'hot_seconds', help: 'h', labelNames: ['route'] as const, buckets });
    const reference = new Histogram({ name: 'reference_seconds', help: 'h', labelNames: ['route'], buckets });
    for (const [route, value] of [
      ['/a', 0.005],
      ['/a', 0.01],
      ['/a', 0.5],
      ['/b', 3],
      ['/a', 0.1],
    ] as const) {
      hot.labels(route).observe(value);
      reference.labels(route).observe(value);
    }
    expect(await familyText('hot_seconds')).toBe(await familyText('reference_seconds'));
  });

  it('expose a counter exactly as prom-client would, one series per label values however often they are asked for', async () => {
    const hot = new HotCounter({ name: 'hot_total', help: 'c', labelNames: ['subject', 'outcome'] as const });
    const reference = new Counter({ name: 'reference_total', help: 'c', labelNames: ['subject', 'outcome'] });
    const ok = hot.labels('a.b', 'ok');
    ok.inc();
    ok.inc();
    hot.labels('a.b', 'ok').inc();
    hot.labels('a.b', 'not_found').inc(2);
    reference.labels('a.b', 'ok').inc(3);
    reference.labels('a.b', 'not_found').inc(2);
    expect(await familyText('hot_total')).toBe(await familyText('reference_total'));
  });

  it('refuse a second metric of the same name, as prom-client does', () => {
    new HotCounter({ name: 'twice_total', help: 'c', labelNames: [] });
    expect(() => new HotCounter({ name: 'twice_total', help: 'c', labelNames: [] })).toThrow(
      /already been registered/,
    );
  });
});
