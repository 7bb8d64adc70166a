import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { NatsIdentity } from '#contracts';
import { connectNats, passwordVariableOf } from '#nats';
import type { NatsConnection } from '@nats-io/transport-node';

import { freePort } from './free-port.js';
import { TestNatsServer } from './nats-server.js';
import { createDatabase, databaseUrl, dropDatabase } from './postgres.js';
import { isBuilt, runMigrations, type ServiceProcess, startService } from './service-process.js';

/**
 * Every request of a test or a benchmark comes from 127.0.0.1: the gateway's per-address limits would
 * count them all as one client. The tests of those limits start gateways with small ones of their own.
 */
export const ONE_ADDRESS_FOR_ALL = {
  AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
  HOOKS_RATE_LIMIT_PER_MINUTE: '1000000',
  FAILED_CREDENTIALS_PER_MINUTE: '1000000',
} as const;

/**
 * The services a full stack runs, in start order. Each issue that adds a service adds it here; the
 * stack starts those that are built.
 */
export const SERVICE_APPS = ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'] as const;

export interface StackDescription {
  baseUrl: string;
  env: Record<string, string>;
  databaseName: string;
  /** The NATS server's monitoring endpoint, on stacks `TestStack` started. */
  natsMonitorUrl?: string;
}

/**
 * A whole running service for one test run: its own Postgres database, its own authenticated NATS
 * server (with the permissions `deploy/` uses) and subject prefix, every built service as a real
 * process (or all of them in one all-in-one process), and the gateway in front.
 */
export class TestStack {
  /** The health port of each service process (`/health`, `/metrics`), by process name. */
  readonly healthUrls = new Map<string, string>();

  private constructor(
    readonly description: StackDescription,
    readonly processes: Map<string, ServiceProcess>,
    private readonly dataDir: string,
    readonly nats: TestNatsServer,
  ) {}

  get baseUrl(): string {
    return this.description.baseUrl;
  }

  get env(): Record<string, string> {
    return this.description.env;
  }

  /**
   * `services` narrows the stack to some services (in start order), for a test that needs its own.
   * `allInOne` runs them and the gateway in one process, as `npm start` does; otherwise each is a
   * process of its own, as `deploy/` runs them, so a test can stop or kill one service.
   */
  static async start(
    extraEnv: Record<string, string> = {},
    {
      services: wanted = SERVICE_APPS,
      allInOne = false,
    }: { services?: readonly string[]; allInOne?: boolean } = {},
  ): Promise<TestStack> {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const databaseName = `fm_test_${id}`;
    const subjectPrefix = `t_${id}.`;
    const nats = await TestNatsServer.start(subjectPrefix);
    const dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-test-'));
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl(databaseName),
      NATS_URL: nats.url,
      ...nats.credentials,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      DATA_DIR: dataDir,
      AUTH_SECRET: `test-secret-${id}-0123456789abcdefghijklmnop`,
      // Up to four stacks run at once (the shared one and three files' own, one per Jest worker):
      // smaller pools keep them within Postgres' 100 connections.
      DATABASE_POOL_SIZE: '5',
      // As the image and `npm start` set it (deploy/Dockerfile).
      UV_THREADPOOL_SIZE: '16',
      // Several gateways run at once on a test machine: each takes a free port for its `/metrics`.
      METRICS_PORT: '0',
      ...ONE_ADDRESS_FOR_ALL,
      ...extraEnv,
    };
    await createDatabase(databaseName);
    const services = wanted.filter(isBuilt);
    // The all-in-one process migrates the apps it runs itself.
    if (!allInOne) await runMigrations(services, env);
    const processes = new Map<string, ServiceProcess>();
    const stack = new TestStack(
      { baseUrl: '', env, databaseName, natsMonitorUrl: nats.monitorUrl },
      processes,
      dataDir,
      nats,
    );
    try {
      if (allInOne) {
        const gateway = await stack.startGateway(
          { SERVICES: [...services, 'gateway'].join(',') },
          { app: 'all-in-one', timeoutMs: 60_000 },
        );
        stack.description.baseUrl = gateway.baseUrl;
        processes.set('all-in-one', gateway.process);
      } else {
        await Promise.all(services.map((app) => stack.startService(app)));
        const gateway = await stack.startGateway();
        stack.description.baseUrl = gateway.baseUrl;
        processes.set('gateway', gateway.process);
      }
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  /** Starts (or starts again) one service with the stack's environment; `name` allows replicas. */
  async startService(
    app: string,
    extraEnv: Record<string, string> = {},
    name = app,
  ): Promise<ServiceProcess> {
    const port = await freePort();
    const service = await startService(app, {
      name,
      env: { ...this.env, HEALTH_PORT: String(port), ...extraEnv },
      readyUrl: `http://127.0.0.1:${port}/health/ready`,
    });
    this.processes.set(name, service);
    this.healthUrls.set(name, `http://127.0.0.1:${port}`);
    return service;
  }

  /**
   * A gateway in front of the stack's services; a test may start another with its own settings.
   * `app` 'all-in-one' starts the process that runs the gateway and the services `SERVICES` lists.
   */
  async startGateway(
    extraEnv: Record<string, string> = {},
    { app = 'gateway', timeoutMs }: { app?: 'gateway' | 'all-in-one'; timeoutMs?: number } = {},
  ): Promise<{ baseUrl: string; process: ServiceProcess }> {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const process = await startService(app, {
      env: { ...this.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, ...extraEnv },
      readyUrl: `${baseUrl}/health/ready`,
      timeoutMs,
    });
    return { baseUrl, process };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.values()].map((service) => service.stop()));
    await dropDatabase(this.description.databaseName).catch(() => undefined);
    await this.nats.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * A connection to the stack's NATS server as one of its identities, for tests that watch or drive a
 * service over NATS: it may do exactly what that identity may, and nothing more.
 */
export function connectAs(stack: StackDescription, identity: NatsIdentity): Promise<NatsConnection> {
  const url = stack.env.NATS_URL;
  if (!url) throw new Error('the stack has no NATS_URL');
  return connectNats(
    { url, identity, password: stack.env[passwordVariableOf(identity)] },
    `test-${identity}`,
  );
}

/**
 * Another gateway in front of a running stack's services, with settings of its own (limits, proxies):
 * it shares their store, so what it counts, every gateway of the stack counts.
 */
export async function startExtraGateway(
  stack: StackDescription,
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<{ baseUrl: string; process: ServiceProcess }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const process = await startService('gateway', {
    name,
    env: { ...stack.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, ...extraEnv },
    readyUrl: `${baseUrl}/health/ready`,
  });
  return { baseUrl, process };
}

/** What a test file needs of the stack that global set-up started, passed through the environment. */
export function runningStack(): StackDescription {
  const raw = process.env.E2E_STACK;
  if (!raw) throw new Error('E2E_STACK is not set: run end-to-end tests through the e2e Jest project');
  return JSON.parse(raw) as StackDescription;
}
