import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { collectDefaultMetrics, register } from 'prom-client';
import { parse } from 'yaml';

import { DEPLOY_DIR } from './manifests.js';

/**
 * The dashboard and the alert rules name only metrics the code defines: every `*.metrics.ts` file of
 * the apps and libs is loaded (each defines its families on the default registry when imported), with
 * the process metrics prom-client collects, and every metric name in their expressions must be one of
 * them. Each of ours is also explained in docs/observability.md.
 */
const ROOT = join(DEPLOY_DIR, '..');
const MONITORING = join(DEPLOY_DIR, 'components', 'monitoring');

const METRIC_NAME = /\b(?:flowmesh|process|nodejs)_[a-z0-9_]+\b/g;

function metricFiles(): string[] {
  return ['apps', 'libs'].flatMap((top) =>
    (readdirSync(join(ROOT, top), { recursive: true }) as string[])
      .filter((path) => path.endsWith('.metrics.ts') && !path.includes('node_modules'))
      .map((path) => join(ROOT, top, path)),
  );
}

function expressionsOfDashboard(): string[] {
  const dashboard = JSON.parse(readFileSync(join(MONITORING, 'dashboards', 'flowmesh.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

function expressionsOfRules(): string[] {
  const rule = parse(readFileSync(join(MONITORING, 'prometheus-rules.yaml'), 'utf8')) as {
    spec: { groups: Array<{ rules: Array<{ expr: string }> }> };
  };
  return rule.spec.groups.flatMap((group) => group.rules.map((entry) => entry.expr));
}

const namesIn = (expressions: string[]) => [
  ...new Set(expressions.flatMap((e) => e.match(METRIC_NAME) ?? [])),
];

describe('the metrics the dashboard and the alerts use', () => {
  const catalog = new Set<string>();
  const ours: string[] = [];

  beforeAll(async () => {
    const files = metricFiles();
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) await import(file);
    for (const metric of register.getMetricsAsArray()) ours.push(metric.name);
    collectDefaultMetrics();
    for (const metric of await register.getMetricsAsJSON()) {
      catalog.add(metric.name);
      // A histogram's series, as queries name them.
      if (String(metric.type) === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) catalog.add(`${metric.name}${suffix}`);
    }
  });

  it.each([
    ['dashboard', expressionsOfDashboard],
    ['alert rules', expressionsOfRules],
  ])('the %s name only metrics the code defines', (_what, expressions) => {
    const names = namesIn(expressions());
    expect(names.length).toBeGreaterThan(3);
    expect(names.filter((name) => !catalog.has(name))).toEqual([]);
  });

  it('shows runs, failures, queue depth, step latency, model tokens and HTTP errors on the dashboard', () => {
    const names = namesIn(expressionsOfDashboard());
    expect(names).toEqual(
      expect.arrayContaining([
        'flowmesh_runs_started_total',
        'flowmesh_runs_finished_total',
        'flowmesh_runs_unfinished',
        'flowmesh_step_duration_seconds_bucket',
        'flowmesh_model_tokens_total',
        'flowmesh_http_requests_total',
      ]),
    );
  });

  it('follows the naming conventions and explains every metric of ours in docs/observability.md', async () => {
    const docs = readFileSync(join(ROOT, 'docs', 'observability.md'), 'utf8');
    for (const name of ours) {
      expect(name).toMatch(/^flowmesh_[a-z0-9_]+$/);
      expect({ name, documented: docs.includes(`\`${name}\``) }).toEqual({ name, documented: true });
    }
    // Counters end in _total, durations are histograms in seconds, sizes in bytes.
    const counters = (await register.getMetricsAsJSON()).filter(
      (metric) => String(metric.type) === 'counter',
    );
    for (const counter of counters) if (ours.includes(counter.name)) expect(counter.name).toMatch(/_total$/);
    expect(counters.map((counter) => counter.name)).toContain('flowmesh_http_requests_total');
  });
});
