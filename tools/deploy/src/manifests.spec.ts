import {
  type KubeObject,
  renderOverlay,
  type RuleOptions,
  ruleProblems,
  schemaProblems,
} from './manifests.js';

/** Every overlay renders, passes the Kubernetes API schemas and the rules; each rule can fail. */
const OPTIONS: Record<string, RuleOptions> = {
  development: {},
  // Production's Secrets are made by the operator (deploy/README.md).
  production: { externalSecrets: ['nats-credentials', 'flowmesh-secrets'], natsNodes: 3 },
  monitoring: {},
};

describe('deploy manifests', () => {
  const rendered = Object.fromEntries(
    Object.keys(OPTIONS).map((overlay) => [overlay, renderOverlay(overlay)]),
  );
  const production = () => structuredClone(rendered.production!) as KubeObject[];
  const find = (objects: KubeObject[], kind: string, name: string) =>
    objects.find((object) => object.kind === kind && object.metadata.name === name)!;
  const container = (objects: KubeObject[], kind: string, name: string) =>
    find(objects, kind, name).spec.template.spec.containers[0];

  it.each(Object.keys(OPTIONS))('renders %s with no schema or rule problem', (overlay) => {
    const objects = rendered[overlay]!;
    expect(objects.length).toBeGreaterThan(30);
    expect(schemaProblems(objects)).toEqual([]);
    expect(ruleProblems(objects, OPTIONS[overlay])).toEqual([]);
  });

  it('runs every app, a 3-node NATS, autoscaled gateway and runner, budgets and network policies in production', () => {
    const objects = rendered.production!;
    const names = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name);
    expect(names('Deployment').sort()).toEqual([
      'agent',
      'catalog',
      'events',
      'gateway',
      'runner',
      'workflow',
    ]);
    expect(names('StatefulSet').sort()).toEqual(['database', 'nats', 'postgres']);
    expect(find(objects, 'StatefulSet', 'nats').spec.replicas).toBe(3);
    expect(names('HorizontalPodAutoscaler').sort()).toEqual(['gateway', 'runner']);
    expect(names('PodDisruptionBudget')).toHaveLength(8);
    expect(names('NetworkPolicy')).toContain('default-deny-ingress');
    expect(
      objects.every((object) => object.kind === 'Namespace' || object.metadata.namespace === 'flowmesh'),
    ).toBe(true);
  });

  it('finds what the schemas refuse', () => {
    const objects = production();
    find(objects, 'Deployment', 'runner').spec.replicas = 'three';
    find(objects, 'Service', 'gateway').spec.ports[0].port = 'eighty';
    expect(schemaProblems(objects).sort()).toEqual([
      'Deployment/runner: data/spec/replicas must be integer',
      'Service/gateway: data/spec/ports/0/port must be integer',
    ]);
    expect(
      schemaProblems([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }]),
    ).toEqual(['Widget/w: no schema here for example.com/v1 Widget']);
  });

  it('finds probes off the health routes or ports, and missing resources', () => {
    const objects = production();
    delete container(objects, 'Deployment', 'gateway').readinessProbe;
    container(objects, 'Deployment', 'catalog').livenessProbe.httpGet.path = '/healthz';
    container(objects, 'Deployment', 'runner').startupProbe.httpGet.port = 'metrics';
    container(objects, 'Deployment', 'agent').env.find((v: any) => v.name === 'HEALTH_PORT').value = '9999';
    delete container(objects, 'Deployment', 'workflow').resources.limits;
    expect(ruleProblems(objects, OPTIONS.production)).toEqual(
      expect.arrayContaining([
        'Deployment/gateway gateway: no readinessProbe',
        'Deployment/catalog catalog: livenessProbe asks /healthz, not /health/live',
        'Deployment/runner runner: startupProbe names port metrics, which it does not declare',
        expect.stringMatching(
          /^Deployment\/agent agent: readinessProbe asks port \d+, but the app listens on 9999$/,
        ),
        'Deployment/workflow workflow: no memory limit',
      ]),
    );
  });

  it("finds a database pod whose memory limit leaves no room above its engine worker's", () => {
    const objects = production();
    const database = container(objects, 'StatefulSet', 'database');
    database.resources.limits.memory = '3584Mi';
    expect(ruleProblems(objects, OPTIONS.production)).toEqual([
      'StatefulSet/database database: memory limit 3584Mi leaves no 768Mi for the service above DUCKDB_WORKER_MEMORY_LIMIT 3GiB',
    ]);
    database.env = database.env.filter((variable: any) => variable.name !== 'DUCKDB_WORKER_MEMORY_LIMIT');
    expect(ruleProblems(objects, OPTIONS.production)).toEqual([
      'StatefulSet/database database: sets no DUCKDB_WORKER_MEMORY_LIMIT',
    ]);
  });

  it('finds a gateway that would count its ingress as every client, and apps not in production mode', () => {
    const objects = production();
    const settings = find(objects, 'ConfigMap', 'flowmesh-config');
    delete settings.data.TRUST_PROXY;
    delete settings.data.NODE_ENV;
    expect(ruleProblems(objects, OPTIONS.production)).toEqual([
      'ConfigMap flowmesh-config: no TRUST_PROXY, so the gateway sees every client as its ingress',
      'ConfigMap flowmesh-config: no NODE_ENV, so the apps do not refuse development settings',
    ]);
  });

  it('finds selectors that select nothing and references to objects that are not there', () => {
    const objects = production();
    find(objects, 'Service', 'gateway').spec.selector = { app: 'nobody' };
    find(objects, 'PodDisruptionBudget', 'catalog').spec.selector.matchLabels = { app: 'nobody' };
    find(objects, 'HorizontalPodAutoscaler', 'runner').spec.scaleTargetRef.name = 'runners';
    container(objects, 'Deployment', 'events').envFrom[0].configMapRef.name = 'flowmesh-settings';
    const network = objects.find(
      (o) => o.kind === 'NetworkPolicy' && o.metadata.name !== 'default-deny-ingress',
    )!;
    network.spec.podSelector.matchLabels = { app: 'nobody' };
    expect(ruleProblems(objects, OPTIONS.production)).toEqual(
      expect.arrayContaining([
        'Service/gateway: its selector matches no pods',
        'PodDisruptionBudget/catalog: its selector matches 0 workloads, not one',
        'Deployment/catalog: no PodDisruptionBudget covers it',
        'HorizontalPodAutoscaler/runner: scales Deployment/runners, which is not here',
        'Deployment/runner: no HorizontalPodAutoscaler',
        'Deployment/events: events reads ConfigMap flowmesh-settings, which is not here',
        `NetworkPolicy/${network.metadata.name}: its podSelector matches no pods`,
      ]),
    );
    // Production's credentials are the operator's Secret: without saying so, every reference to it is reported.
    expect(ruleProblems(production(), { natsNodes: 3 })).toEqual(
      expect.arrayContaining([
        'Deployment/gateway: gateway reads NATS_GATEWAY_PASSWORD from Secret nats-credentials, which is not here',
      ]),
    );
  });

  it('finds a NATS cluster whose nodes, routes, users or stream replicas disagree', () => {
    const objects = production();
    find(objects, 'StatefulSet', 'nats').spec.replicas = 5;
    const settings = find(objects, 'ConfigMap', 'flowmesh-config');
    settings.data.NATS_STREAM_REPLICAS = '1';
    const natsConfig = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('nats-config'),
    )!;
    natsConfig.data['nats.conf'] = natsConfig.data['nats.conf'].replace('include ./authorization.conf', '');
    expect(ruleProblems(objects, OPTIONS.production)).toEqual(
      expect.arrayContaining([
        'StatefulSet/nats: 5 nodes, not 3',
        'ConfigMap nats-config: NATS does not load the users of authorization.conf',
        'ConfigMap nats-config: nats.conf has no cluster route to nats-3',
        'ConfigMap nats-config: nats.conf has no cluster route to nats-4',
        'ConfigMap flowmesh-config: NATS_STREAM_REPLICAS is 1 on 5 NATS nodes',
      ]),
    );
  });
  it('checks the monitoring component: ServiceMonitors that scrape a named port of a Service, rules promtool takes', () => {
    const objects = structuredClone(rendered.monitoring!) as KubeObject[];
    const names = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name);
    expect(names('ServiceMonitor').sort()).toEqual([
      'agent',
      'catalog',
      'database',
      'events',
      'gateway',
      'runner',
      'workflow',
    ]);
    expect(find(objects, 'ConfigMap', 'grafana-dashboard-flowmesh').metadata.labels).toMatchObject({
      grafana_dashboard: '1',
    });
    find(objects, 'ServiceMonitor', 'runner').spec.selector.matchLabels = { app: 'nobody' };
    find(objects, 'ServiceMonitor', 'agent').spec.endpoints[0].port = 'health';
    const rules = find(objects, 'PrometheusRule', 'flowmesh');
    rules.spec.groups[0].rules[0].expr = 'sum(rate(flowmesh_runs_finished_total[15m]) >';
    const late = structuredClone(rules);
    late.spec.groups[0].rules[1].for = 'soon';
    expect(schemaProblems([late])).toEqual([
      'PrometheusRule/flowmesh: data/spec/groups/0/rules/1/for must be a duration',
    ]);
    expect(schemaProblems(objects)).toEqual([]);
    expect(ruleProblems(objects)).toEqual(
      expect.arrayContaining([
        'ServiceMonitor/runner: its selector matches no Service',
        'ServiceMonitor/agent: scrapes port health, which a Service it selects does not name',
        expect.stringMatching(/^PrometheusRule\/flowmesh: promtool: .*parse error/),
      ]),
    );
  });
});
