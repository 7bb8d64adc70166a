import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { bytesOf } from '#common';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { parseAllDocuments, stringify } from 'yaml';

/**
 * The manifests in `deploy/` as a cluster would receive them: each overlay rendered by `kubectl
 * kustomize`, every object checked against the Kubernetes API schemas (kubernetes-models 4.5, the
 * API of Kubernetes 1.27; every kind used here is a stable `v1`/`v2` still served by current
 * releases), then against the rules that make the objects work together: probes on the health routes,
 * selectors that select something, references to objects that exist, the NATS cluster and the job
 * streams' replicas agreeing.
 */

// Loose on purpose: the schemas say what is valid, the rules read only the fields they need.
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: any;
};

// From tools/deploy/src or dist/tools/deploy/src.
export const DEPLOY_DIR = join(join(import.meta.dirname, '..', '..', '..').replace(/\/dist$/, ''), 'deploy');
/** `monitoring` is development with the optional monitoring component (Prometheus Operator CRDs). */
export const OVERLAYS = ['development', 'production', 'monitoring'] as const;

/** A Prometheus duration: `30s`, `5m`, `1h30m`. */
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;
const isStringMap = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  Object.values(value).every((entry) => typeof entry === 'string');

/**
 * The Prometheus Operator's CRDs are not in kubernetes-models: the fields we use, checked as its CRD
 * schemas would (monitoring.coreos.com/v1); the rules' expressions are then checked by promtool
 * (`prometheusRuleProblems`).
 */
abstract class CustomResourceModel {
  protected readonly errors: string[] = [];
  constructor(protected readonly data: any) {}

  protected expect(condition: boolean, message: string): void {
    if (!condition) this.errors.push(message);
  }

  validate(): void {
    this.expect(typeof this.data.metadata?.name === 'string', 'data/metadata/name must be string');
    this.check(this.data.spec ?? {});
    if (this.errors.length > 0) throw new Error(this.errors.join(', '));
  }

  protected abstract check(spec: any): void;
}

class ServiceMonitorModel extends CustomResourceModel {
  protected override check(spec: any): void {
    this.expect(
      isStringMap(spec.selector?.matchLabels),
      'data/spec/selector/matchLabels must be a map of strings',
    );
    this.expect(
      Array.isArray(spec.endpoints) && spec.endpoints.length > 0,
      'data/spec/endpoints must be a non-empty array',
    );
    (Array.isArray(spec.endpoints) ? spec.endpoints : []).forEach((endpoint: any, index: number) => {
      const where = `data/spec/endpoints/${index}`;
      this.expect(typeof endpoint.port === 'string', `${where}/port must be string`);
      this.expect(
        endpoint.path === undefined || /^\//.test(endpoint.path),
        `${where}/path must start with /`,
      );
      this.expect(
        endpoint.interval === undefined || DURATION.test(endpoint.interval),
        `${where}/interval must be a duration`,
      );
    });
  }
}

class PrometheusRuleModel extends CustomResourceModel {
  protected override check(spec: any): void {
    this.expect(
      Array.isArray(spec.groups) && spec.groups.length > 0,
      'data/spec/groups must be a non-empty array',
    );
    (Array.isArray(spec.groups) ? spec.groups : []).forEach((group: any, index: number) => {
      const where = `data/spec/groups/${index}`;
      this.expect(typeof group.name === 'string', `${where}/name must be string`);
      this.expect(
        Array.isArray(group.rules) && group.rules.length > 0,
        `${where}/rules must be a non-empty array`,
      );
      (Array.isArray(group.rules) ? group.rules : []).forEach((rule: any, at: number) => {
        const ruleAt = `${where}/rules/${at}`;
        this.expect(
          (typeof rule.alert === 'string') !== (typeof rule.record === 'string'),
          `${ruleAt} must have one of alert and record`,
        );
        this.expect(
          typeof rule.expr === 'string' && rule.expr.trim() !== '',
          `${ruleAt}/expr must be a non-empty string`,
        );
        this.expect(rule.for === undefined || DURATION.test(rule.for), `${ruleAt}/for must be a duration`);
        for (const map of ['labels', 'annotations'])
          this.expect(
            rule[map] === undefined || isStringMap(rule[map]),
            `${ruleAt}/${map} must be a map of strings`,
          );
      });
    });
  }
}

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitorModel,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRuleModel,
};

/** Every app of ours and the workload kind it runs as. */
const APPS: Record<string, 'Deployment' | 'StatefulSet'> = {
  gateway: 'Deployment',
  catalog: 'Deployment',
  workflow: 'Deployment',
  runner: 'Deployment',
  events: 'Deployment',
  agent: 'Deployment',
  database: 'StatefulSet',
};
const AUTOSCALED = ['gateway', 'runner'];
const OUR_IMAGE = /(^|\/)flowmesh(:|$)/;

export function renderOverlay(overlay: string): KubeObject[] {
  const yaml = execFileSync('kubectl', ['kustomize', join(DEPLOY_DIR, 'overlays', overlay)], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 32 * 1024 * 1024,
  });
  return parseAllDocuments(yaml)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

const nameOf = (object: KubeObject) => `${object.kind}/${object.metadata?.name}`;

/** What the Kubernetes API schemas refuse, one line per object. */
export function schemaProblems(objects: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    if (!Model) {
      problems.push(`${nameOf(object)}: no schema here for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${nameOf(object)}: ${(error as Error).message}`);
    }
  }
  return problems;
}

const workloadKinds = new Set(['Deployment', 'StatefulSet', 'Job']);
const podLabels = (workload: KubeObject): Record<string, string> =>
  workload.spec?.template?.metadata?.labels ?? {};
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
const containersOf = (workload: KubeObject): any[] => [
  ...(workload.spec?.template?.spec?.initContainers ?? []),
  ...(workload.spec?.template?.spec?.containers ?? []),
];
const envValue = (container: any, name: string): string | undefined =>
  container.env?.find((variable: any) => variable.name === name)?.value;

/** The container port a probe or a Service names, by name or by number. */
function portNumber(container: any, port: string | number | undefined): number | undefined {
  const declared: any[] = container.ports ?? [];
  const found = declared.find((entry) => entry.name === port || entry.containerPort === port);
  return found?.containerPort;
}

export interface RuleOptions {
  /** Secrets the operator makes by hand (deploy/README.md), so no overlay renders them. */
  externalSecrets?: readonly string[];
  /** NATS nodes this overlay must run (3 for production). */
  natsNodes?: number;
}

/** What keeps the rendered objects from working together, one line per finding. */
export function ruleProblems(objects: readonly KubeObject[], options: RuleOptions = {}): string[] {
  const problems: string[] = [];
  const problem = (object: KubeObject, message: string) => problems.push(`${nameOf(object)}: ${message}`);
  const named = (kind: string, name: string) =>
    objects.find((object) => object.kind === kind && object.metadata?.name === name);
  const workloads = objects.filter((object) => workloadKinds.has(object.kind));
  const podsMatching = (selector: Record<string, string> | undefined) =>
    workloads.filter((workload) => matches(selector, podLabels(workload)));

  for (const [app, kind] of Object.entries(APPS)) {
    if (!named(kind, app)) problems.push(`${kind}/${app}: missing`);
  }
  if (!named('Job', 'flowmesh-migrate')) problems.push('Job/flowmesh-migrate: missing');

  const secrets = new Set([
    ...objects.filter((object) => object.kind === 'Secret').map((object) => object.metadata.name),
    ...(options.externalSecrets ?? []),
  ]);
  const configMaps = new Set(
    objects.filter((object) => object.kind === 'ConfigMap').map((object) => object.metadata.name),
  );

  for (const workload of workloads) {
    const selector = workload.spec?.selector?.matchLabels;
    if (workload.kind !== 'Job' && (!selector || !matches(selector, podLabels(workload)))) {
      problem(workload, 'its selector does not select its own pods');
    }
    for (const volume of workload.spec?.template?.spec?.volumes ?? []) {
      if (volume.configMap && !configMaps.has(volume.configMap.name))
        problem(
          workload,
          `volume ${volume.name} names ConfigMap ${volume.configMap.name}, which is not here`,
        );
      if (volume.secret && !secrets.has(volume.secret.secretName))
        problem(
          workload,
          `volume ${volume.name} names Secret ${volume.secret.secretName}, which is not here`,
        );
    }
    for (const container of containersOf(workload)) {
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef && !configMaps.has(source.configMapRef.name))
          problem(
            workload,
            `${container.name} reads ConfigMap ${source.configMapRef.name}, which is not here`,
          );
        if (source.secretRef && !secrets.has(source.secretRef.name))
          problem(workload, `${container.name} reads Secret ${source.secretRef.name}, which is not here`);
      }
      for (const variable of container.env ?? []) {
        const secret = variable.valueFrom?.secretKeyRef?.name;
        const configMap = variable.valueFrom?.configMapKeyRef?.name;
        if (secret && !secrets.has(secret))
          problem(
            workload,
            `${container.name} reads ${variable.name} from Secret ${secret}, which is not here`,
          );
        if (configMap && !configMaps.has(configMap))
          problem(
            workload,
            `${container.name} reads ${variable.name} from ConfigMap ${configMap}, which is not here`,
          );
      }
      if (workload.kind !== 'Job' && OUR_IMAGE.test(container.image ?? '')) {
        problems.push(...appContainerProblems(workload, container));
      }
    }
  }

  for (const service of objects.filter((object) => object.kind === 'Service')) {
    const pods = podsMatching(service.spec?.selector);
    if (pods.length === 0) {
      problem(service, 'its selector matches no pods');
      continue;
    }
    for (const port of service.spec?.ports ?? []) {
      const target = port.targetPort ?? port.port;
      const served = pods.some((pod) => containersOf(pod).some((c) => portNumber(c, target) !== undefined));
      if (!served)
        problem(service, `port ${port.name ?? port.port} targets ${target}, which no pod declares`);
    }
  }

  const budgets = objects.filter((object) => object.kind === 'PodDisruptionBudget');
  for (const budget of budgets) {
    const pods = podsMatching(budget.spec?.selector?.matchLabels);
    if (pods.length !== 1) problem(budget, `its selector matches ${pods.length} workloads, not one`);
  }
  // Our apps and NATS; not the example Postgres, whose one replica a budget could only pin to its
  // node (production points DATABASE_URL at a managed Postgres).
  for (const workload of workloads.filter(
    (object) => object.metadata.name in APPS || object.metadata.name === 'nats',
  )) {
    if (!budgets.some((budget) => matches(budget.spec?.selector?.matchLabels, podLabels(workload))))
      problem(workload, 'no PodDisruptionBudget covers it');
  }

  const autoscalers = objects.filter((object) => object.kind === 'HorizontalPodAutoscaler');
  for (const autoscaler of autoscalers) {
    const target = autoscaler.spec?.scaleTargetRef;
    const workload = target && named(target.kind, target.name);
    if (!workload) {
      problem(autoscaler, `scales ${target?.kind}/${target?.name}, which is not here`);
      continue;
    }
    const byCpu = (autoscaler.spec?.metrics ?? []).some((metric: any) => metric.resource?.name === 'cpu');
    if (byCpu && containersOf(workload).some((container) => !container.resources?.requests?.cpu))
      problem(autoscaler, `scales on CPU, but a container of ${nameOf(workload)} requests none`);
  }
  for (const app of AUTOSCALED) {
    if (!autoscalers.some((autoscaler) => autoscaler.spec?.scaleTargetRef?.name === app))
      problems.push(`Deployment/${app}: no HorizontalPodAutoscaler`);
  }

  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const denyAll = policies.some(
    (policy) =>
      Object.keys(policy.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
      (policy.spec?.policyTypes ?? []).includes('Ingress') &&
      (policy.spec?.ingress ?? []).length === 0,
  );
  if (!denyAll) problems.push('NetworkPolicy: none denies all ingress by default');
  for (const policy of policies) {
    const selector = policy.spec?.podSelector?.matchLabels;
    if (Object.keys(selector ?? {}).length > 0 && podsMatching(selector).length === 0)
      problem(policy, 'its podSelector matches no pods');
  }

  for (const monitor of objects.filter((object) => object.kind === 'ServiceMonitor')) {
    const services = objects.filter(
      (object) =>
        object.kind === 'Service' &&
        matches(monitor.spec?.selector?.matchLabels, object.metadata.labels ?? {}),
    );
    if (services.length === 0) problem(monitor, 'its selector matches no Service');
    for (const endpoint of monitor.spec?.endpoints ?? []) {
      if (
        !services.every((service) =>
          (service.spec?.ports ?? []).some((port: any) => port.name === endpoint.port),
        )
      )
        problem(monitor, `scrapes port ${endpoint.port}, which a Service it selects does not name`);
    }
  }
  for (const rule of objects.filter((object) => object.kind === 'PrometheusRule')) {
    problems.push(...prometheusRuleProblems(rule));
  }

  problems.push(...natsProblems(objects, options.natsNodes));
  problems.push(...databaseMemoryProblems(named('StatefulSet', 'database')));
  problems.push(...edgeProblems(named('ConfigMap', 'flowmesh-config')));
  return problems;
}

/**
 * The gateway sits behind a Service, so clients reach it through a proxy: unless it is told how many
 * (TRUST_PROXY), every per-address limit counts the proxy, and one stranger's wrong passwords lock
 * everyone out of signing in. And in production mode the apps refuse development settings.
 */
function edgeProblems(settings: KubeObject | undefined): string[] {
  const problems: string[] = [];
  if (settings?.data?.TRUST_PROXY === undefined)
    problems.push(
      'ConfigMap flowmesh-config: no TRUST_PROXY, so the gateway sees every client as its ingress',
    );
  if (settings?.data?.NODE_ENV === undefined)
    problems.push('ConfigMap flowmesh-config: no NODE_ENV, so the apps do not refuse development settings');
  return problems;
}

/** Room the database pod needs beside its engine worker's limit: the service itself and the code both map. */
const DATABASE_SERVICE_BYTES = 768 * 2 ** 20;

const QUANTITY_UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** Bytes in a Kubernetes memory quantity (`4Gi`, `512M`); NaN for a form not used here. */
function quantityBytes(quantity: string | undefined): number {
  const match = /^(\d+(?:\.\d+)?)([kMGT]i?)?$/.exec(quantity ?? '');
  return match ? Number(match[1]) * (QUANTITY_UNITS[match[2] ?? ''] ?? Number.NaN) : Number.NaN;
}

/**
 * The database service holds DuckDB in an engine worker limited to DUCKDB_WORKER_MEMORY_LIMIT
 * (docs/databases.md, "Bounds"): the pod's memory limit must be above it with room for the service,
 * or the kernel would kill the pod before DuckDB is refused memory.
 */
function databaseMemoryProblems(database: KubeObject | undefined): string[] {
  const container = database && containersOf(database).find((candidate) => candidate.name === 'database');
  if (!container) return [];
  const where = `${nameOf(database)} database`;
  const worker = envValue(container, 'DUCKDB_WORKER_MEMORY_LIMIT');
  if (worker === undefined) return [`${where}: sets no DUCKDB_WORKER_MEMORY_LIMIT`];
  const limit = quantityBytes(container.resources?.limits?.memory);
  if (!(bytesOf(worker) + DATABASE_SERVICE_BYTES <= limit)) {
    return [
      `${where}: memory limit ${container.resources?.limits?.memory} leaves no 768Mi for the service above DUCKDB_WORKER_MEMORY_LIMIT ${worker}`,
    ];
  }
  return [];
}

/** An app's container answers its probes on the port it listens on: readiness, liveness, start-up. */
function appContainerProblems(workload: KubeObject, container: any): string[] {
  const problems: string[] = [];
  const where = `${nameOf(workload)} ${container.name}`;
  const listening = Number(envValue(container, 'HEALTH_PORT') ?? envValue(container, 'PORT') ?? NaN);
  const probes = {
    readinessProbe: '/health/ready',
    livenessProbe: '/health/live',
    startupProbe: '/health/live',
  };
  for (const [probe, path] of Object.entries(probes)) {
    const get = container[probe]?.httpGet;
    if (!get) {
      problems.push(`${where}: no ${probe}`);
      continue;
    }
    if (get.path !== path) problems.push(`${where}: ${probe} asks ${get.path}, not ${path}`);
    const port = portNumber(container, get.port);
    if (port === undefined)
      problems.push(`${where}: ${probe} names port ${get.port}, which it does not declare`);
    else if (port !== listening)
      problems.push(`${where}: ${probe} asks port ${port}, but the app listens on ${listening}`);
  }
  if (!container.resources?.requests?.cpu || !container.resources?.requests?.memory)
    problems.push(`${where}: requests no CPU or memory`);
  if (!container.resources?.limits?.memory) problems.push(`${where}: no memory limit`);
  return problems;
}

/**
 * NATS: authenticated, with JetStream, every node routed to the others, and the job streams kept on
 * as many nodes as there are (more cannot be placed, fewer lose jobs with a node).
 */
function natsProblems(objects: readonly KubeObject[], wantedNodes: number | undefined): string[] {
  const problems: string[] = [];
  const nats = objects.find((object) => object.kind === 'StatefulSet' && object.metadata.name === 'nats');
  if (!nats) return ['StatefulSet/nats: missing'];
  const nodes: number = nats.spec?.replicas ?? 1;
  if (wantedNodes !== undefined && nodes !== wantedNodes)
    problems.push(`StatefulSet/nats: ${nodes} nodes, not ${wantedNodes}`);

  const configVolume = (nats.spec?.template?.spec?.volumes ?? []).find((volume: any) => volume.configMap);
  const config = objects.find(
    (object) => object.kind === 'ConfigMap' && object.metadata.name === configVolume?.configMap?.name,
  );
  const natsConf: string = config?.data?.['nats.conf'] ?? '';
  const authorization: string = config?.data?.['authorization.conf'] ?? '';
  if (!/^\s*jetstream\s*\{/m.test(natsConf))
    problems.push('ConfigMap nats-config: nats.conf has no jetstream block');
  if (!/^\s*include\s+\.\/authorization\.conf/m.test(natsConf) || !/\busers\s*[:=]?\s*\[/.test(authorization))
    problems.push('ConfigMap nats-config: NATS does not load the users of authorization.conf');
  if (nodes > 1) {
    const routes = [...natsConf.matchAll(/nats:\/\/(nats-\d+)\.[\w.-]+:6222/g)].map((match) => match[1]);
    for (let index = 0; index < nodes; index += 1) {
      if (!routes.includes(`nats-${index}`))
        problems.push(`ConfigMap nats-config: nats.conf has no cluster route to nats-${index}`);
    }
  }

  const settings = objects.find(
    (object) => object.kind === 'ConfigMap' && object.metadata.name === 'flowmesh-config',
  );
  const streamReplicas = Number(settings?.data?.NATS_STREAM_REPLICAS ?? 1);
  if (streamReplicas !== nodes)
    problems.push(
      `ConfigMap flowmesh-config: NATS_STREAM_REPLICAS is ${streamReplicas} on ${nodes} NATS nodes`,
    );
  return problems;
}

/** What `promtool check rules` (Debian's prometheus package, as CI installs it) says of a rule file. */
export function prometheusRuleProblems(rule: KubeObject): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'flowmesh-rules-'));
  const file = join(dir, `${rule.metadata.name}.yaml`);
  try {
    writeFileSync(file, stringify({ groups: rule.spec?.groups ?? [] }));
    execFileSync(process.env.PROMTOOL ?? 'promtool', ['check', 'rules', file], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return [];
  } catch (error) {
    const failed = error as { code?: string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT')
      return [`${nameOf(rule)}: promtool is not installed (apt-get install prometheus) to check the rules`];
    const said = `${failed.stdout ?? ''}${failed.stderr ?? ''}`
      .split('\n')
      .map((line) => line.replaceAll(`${file}: `, '').trim())
      .filter((line) => line !== '' && !/^(Checking |FAILED:)/.test(line));
    return (said.length > 0 ? said : ['refused the rules']).map(
      (line) => `${nameOf(rule)}: promtool: ${line}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
