import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { NATS_IDENTITIES } from '#contracts';
import { generateNatsPassword, passwordVariableOf } from '#nats';

import { freePort } from './free-port.js';
import { TestNatsServer } from './nats-server.js';
import { PrivatePostgres } from './private-postgres.js';
import { runMigrations, type ServiceProcess, startService } from './service-process.js';
import { ONE_ADDRESS_FOR_ALL, type StackDescription } from './test-stack.js';
import { waitFor } from './wait.util.js';

/**
 * A JetStream cluster of `size` nodes on loopback, authenticated as `deploy/` authenticates it (one
 * user per app, permissions from the subject catalog), its routes authenticated too. A node can be
 * killed and brought back on the same ports and store.
 */
export class TestNatsCluster {
  private constructor(
    readonly nodes: TestNatsServer[],
    readonly credentials: Record<string, string>,
  ) {}

  /** Every node's client URL, as services list them in `NATS_URL`. */
  get url(): string {
    return this.nodes.map((node) => node.url).join(',');
  }

  static async start(subjectPrefix: string, size = 3): Promise<TestNatsCluster> {
    const credentials = Object.fromEntries(
      NATS_IDENTITIES.map((identity) => [passwordVariableOf(identity), generateNatsPassword()]),
    );
    const routePorts = await Promise.all(Array.from({ length: size }, () => freePort()));
    const routePassword = generateNatsPassword();
    // A node waits for its routes before JetStream elects a leader, so all start at once.
    const nodes = await Promise.all(
      routePorts.map((routePort, index) =>
        TestNatsServer.start(subjectPrefix, {
          credentials,
          cluster: {
            name: 'flowmesh',
            serverName: `nats-${index}`,
            routePort,
            routePorts,
            routeUser: 'route',
            routePassword,
          },
        }),
      ),
    );
    const cluster = new TestNatsCluster(nodes, credentials);
    await cluster.waitForJetStream();
    return cluster;
  }

  /** Resolves once every running node sees a JetStream meta leader and all its peers current. */
  async waitForJetStream(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        for (const node of this.nodes) {
          if (!node.running) continue;
          const response = await fetch(`${node.monitorUrl}/jsz?leader-only=false`);
          const body = (await response.json()) as {
            meta_cluster?: { leader?: string; replicas?: Array<{ current: boolean; offline?: boolean }> };
          };
          const meta = body.meta_cluster;
          if (!meta?.leader) return undefined;
          if ((meta.replicas ?? []).some((peer) => !peer.offline && !peer.current)) return undefined;
        }
        return true;
      },
      { timeoutMs, intervalMs: 200, what: 'the NATS cluster to elect a JetStream leader' },
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}

/** The apps of a cluster, in start order, with how many replicas of each `tools/cluster` runs. */
export const CLUSTER_REPLICAS = {
  catalog: 2,
  database: 2,
  events: 1,
  agent: 1,
  workflow: 2,
  runner: 3,
  gateway: 2,
} as const;

export type ClusterApp = keyof typeof CLUSTER_REPLICAS;

export interface ClusterProcess {
  readonly name: string;
  readonly app: ClusterApp;
  readonly env: Record<string, string>;
  readonly readyUrl: string;
  process: ServiceProcess;
}

export interface LocalClusterOptions {
  replicas?: Partial<Record<ClusterApp, number>>;
  env?: Record<string, string>;
  natsNodes?: number;
}

/**
 * The whole service as `deploy/` runs it, on one machine: a Postgres of its own, a 3-node
 * authenticated NATS JetStream cluster with streams replicated on every node, and several replicas
 * of each app as separate processes on loopback ports. Any process, NATS node or Postgres itself can
 * be killed and brought back with the same ports, settings and data.
 */
export class LocalCluster {
  readonly processes = new Map<string, ClusterProcess>();

  private constructor(
    readonly description: StackDescription,
    readonly nats: TestNatsCluster,
    readonly postgres: PrivatePostgres,
    private readonly dataDir: string,
  ) {}

  get env(): Record<string, string> {
    return this.description.env;
  }

  /** The gateways' base URLs. */
  get gateways(): string[] {
    return this.names('gateway').map((name) => this.processes.get(name)!.env.PUBLIC_URL!);
  }

  names(app: ClusterApp): string[] {
    return [...this.processes.values()].filter((entry) => entry.app === app).map((entry) => entry.name);
  }

  static async start({
    replicas = {},
    env: extraEnv = {},
    natsNodes = 3,
  }: LocalClusterOptions = {}): Promise<LocalCluster> {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const subjectPrefix = `c_${id}.`;
    const databaseName = 'flowmesh';
    const [postgres, nats] = await Promise.all([
      PrivatePostgres.start(),
      TestNatsCluster.start(subjectPrefix, natsNodes),
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-cluster-'));
    const env: Record<string, string> = {
      DATABASE_URL: postgres.databaseUrl(databaseName),
      NATS_URL: nats.url,
      ...nats.credentials,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      NATS_STREAM_REPLICAS: String(natsNodes),
      AUTH_SECRET: `cluster-secret-${id}-0123456789abcdefghijklmnop`,
      DATABASE_POOL_SIZE: '5',
      UV_THREADPOOL_SIZE: '16',
      ...ONE_ADDRESS_FOR_ALL,
      ...extraEnv,
    };
    const cluster = new LocalCluster(
      { baseUrl: '', env, databaseName, natsMonitorUrl: nats.nodes[0]!.monitorUrl },
      nats,
      postgres,
      dataDir,
    );
    try {
      await postgres.createDatabase(databaseName);
      const counts = { ...CLUSTER_REPLICAS, ...replicas };
      const services = (Object.keys(counts) as ClusterApp[]).filter((app) => app !== 'gateway');
      await runMigrations(services, env);
      await Promise.all(
        services.flatMap((app) => Array.from({ length: counts[app] }, (_, index) => cluster.add(app, index))),
      );
      await Promise.all(Array.from({ length: counts.gateway }, (_, index) => cluster.add('gateway', index)));
      cluster.description.baseUrl = cluster.gateways[0]!;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  private async add(app: ClusterApp, index: number): Promise<void> {
    const name = `${app}-${index}`;
    const port = await freePort();
    const own: Record<string, string> =
      app === 'gateway'
        ? { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, METRICS_PORT: '0' }
        : { HEALTH_PORT: String(port) };
    if (app === 'database') {
      // Each replica owns its shard's files, as each StatefulSet pod has its own volume.
      own.DATA_DIR = join(this.dataDir, name);
      own.DATABASE_SHARD = String(index);
      mkdirSync(own.DATA_DIR, { recursive: true });
    } else {
      own.DATA_DIR = join(this.dataDir, 'shared');
    }
    const env = { ...this.env, ...own };
    const readyUrl = `http://127.0.0.1:${port}/health/ready`;
    const process = await startService(app, { name, env, readyUrl, timeoutMs: 120_000 });
    this.processes.set(name, { name, app, env, readyUrl, process });
  }

  private entry(name: string): ClusterProcess {
    const entry = this.processes.get(name);
    if (!entry) throw new Error(`no process ${name} in the cluster`);
    return entry;
  }

  /** SIGKILLs a process, as a crash or a lost pod would. */
  async kill(name: string): Promise<void> {
    await this.entry(name).process.kill('SIGKILL');
  }

  /** Starts a process again with its ports, settings and data, and resolves once it is ready. */
  async restart(name: string): Promise<void> {
    const entry = this.entry(name);
    entry.process = await startService(entry.app, {
      name,
      env: entry.env,
      readyUrl: entry.readyUrl,
      timeoutMs: 120_000,
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.values()].map((entry) => entry.process.stop()));
    await Promise.all([this.nats.stop(), this.postgres.stop()]);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
