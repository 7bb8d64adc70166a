import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { adminCli } from './admin-cli.js';
import { ApiClient } from './api-client.js';
import { freePort } from './free-port.js';
import { createDatabase, databaseUrl, dropDatabase } from './postgres.js';
import { isBuilt, runMigrations, type ServiceProcess, startService } from './service-process.js';
import { deleteStreams } from './streams.js';

/**
 * The services a full stack runs, in start order. Each issue that adds a service adds it here; the
 * stack starts those that are built.
 */
export const SERVICE_APPS = ['catalog', 'database', 'workflow', 'runner'] as const;

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export interface StackDescription {
  baseUrl: string;
  env: Record<string, string>;
  databaseName: string;
}

/**
 * A whole running service for one test run: its own Postgres database, its own NATS subject prefix
 * and stream names, every built service as a real process, and the gateway in front.
 */
export class TestStack {
  private constructor(
    readonly description: StackDescription,
    readonly processes: Map<string, ServiceProcess>,
    private readonly dataDir: string,
  ) {}

  get baseUrl(): string {
    return this.description.baseUrl;
  }

  get env(): Record<string, string> {
    return this.description.env;
  }

  static async start(extraEnv: Record<string, string> = {}): Promise<TestStack> {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const databaseName = `fm_test_${id}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-test-'));
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl(databaseName),
      NATS_URL,
      NATS_SUBJECT_PREFIX: `t_${id}.`,
      DATA_DIR: dataDir,
      AUTH_SECRET: `test-secret-${id}-0123456789abcdefghijklmnop`,
      ...extraEnv,
    };
    await createDatabase(databaseName);
    const services = SERVICE_APPS.filter(isBuilt);
    for (const app of services) await runMigrations(app, env);
    const processes = new Map<string, ServiceProcess>();
    const stack = new TestStack({ baseUrl: '', env, databaseName }, processes, dataDir);
    try {
      await Promise.all(services.map((app) => stack.startService(app)));
      const gateway = await stack.startGateway();
      stack.description.baseUrl = gateway.baseUrl;
      processes.set('gateway', gateway.process);
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
    return service;
  }

  /** A gateway in front of the stack's services; a test may start another with its own settings. */
  async startGateway(
    extraEnv: Record<string, string> = {},
  ): Promise<{ baseUrl: string; process: ServiceProcess }> {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const process = await startService('gateway', {
      env: { ...this.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, ...extraEnv },
      readyUrl: `${baseUrl}/health/ready`,
    });
    return { baseUrl, process };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.processes.values()].map((service) => service.stop()));
    await dropDatabase(this.description.databaseName).catch(() => undefined);
    await deleteStreams(this.env.NATS_URL ?? NATS_URL, this.env.NATS_SUBJECT_PREFIX ?? '').catch(
      () => undefined,
    );
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** What a test file needs of the stack that global set-up started, passed through the environment. */
export function runningStack(): StackDescription {
  const raw = process.env.E2E_STACK;
  if (!raw) throw new Error('E2E_STACK is not set: run end-to-end tests through the e2e Jest project');
  return JSON.parse(raw) as StackDescription;
}

export interface OrganizationFixture {
  organizationId: string;
  apiKey: string;
  api: ApiClient;
}

/** A fresh organization with a key, made with the admin CLI as an operator would. */
export async function createOrganization(
  stack: StackDescription,
  { plan = 'enterprise', name = 'Test org' }: { plan?: 'free' | 'pro' | 'enterprise'; name?: string } = {},
): Promise<OrganizationFixture> {
  const { organizationId, apiKey } = await adminCli<{ organizationId: string; apiKey: string }>(
    ['org', 'create', '--name', name, '--plan', plan],
    stack.env,
  );
  return { organizationId, apiKey, api: new ApiClient(stack.baseUrl, apiKey) };
}
