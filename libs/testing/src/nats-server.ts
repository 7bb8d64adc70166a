import { NATS_IDENTITIES, type NatsIdentity } from '#contracts';
import { generateNatsPassword, passwordVariableOf, renderAuthorization } from '#nats';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from './free-port.js';
import { waitFor } from './wait.util.js';

/** Debian's package installs it here; NATS_SERVER_BIN points elsewhere. */
export function natsServerBinary(): string {
  const candidates = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server'];
  const found = candidates.find((path): path is string => path !== undefined && existsSync(path));
  if (!found) {
    throw new Error('nats-server is not installed: apt-get install nats-server, or set NATS_SERVER_BIN');
  }
  return found;
}

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

export interface NatsClusterMembership {
  name: string;
  serverName: string;
  /** This node's route port, and every node's (its own included, as `deploy/` lists them). */
  routePort: number;
  routePorts: readonly number[];
  /** Routes authenticate too, so nothing but the cluster's own nodes can join it. */
  routeUser: string;
  routePassword: string;
}

function clusterBlock(cluster: NatsClusterMembership): string[] {
  const credentials = `${cluster.routeUser}:${cluster.routePassword}`;
  return [
    `server_name: ${cluster.serverName}`,
    'cluster {',
    `  name: ${cluster.name}`,
    `  listen: 127.0.0.1:${cluster.routePort}`,
    `  authorization { user: ${cluster.routeUser}, password: ${cluster.routePassword} }`,
    `  routes: [${cluster.routePorts.map((port) => `nats://${credentials}@127.0.0.1:${port}`).join(', ')}]`,
    '}',
  ];
}

/**
 * A NATS server with JetStream of a test run's own, on a free port, authenticated, with each
 * identity's permissions rendered from the subject catalog exactly as `deploy/` renders them. It can
 * be killed and started again on the same port and store, so streams survive and clients reconnect
 * as they would to a restarted server.
 */
export class TestNatsServer {
  private child?: ChildProcess;
  private exited: Promise<void> = Promise.resolve();
  private log = '';

  private constructor(
    readonly port: number,
    /** The server's monitoring port (`/connz`, `/subsz`), for tests that look at its subscriptions. */
    readonly monitorPort: number,
    private readonly dir: string,
    /** `NATS_<IDENTITY>_PASSWORD` for every identity: what the processes using it connect with. */
    readonly credentials: Record<string, string>,
  ) {}

  /** The running server's process id, for a benchmark that reads its CPU time. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get monitorUrl(): string {
    return `http://127.0.0.1:${this.monitorPort}`;
  }

  static async start(
    subjectPrefix: string,
    {
      cluster,
      credentials = Object.fromEntries(
        NATS_IDENTITIES.map((identity) => [passwordVariableOf(identity), generateNatsPassword()]),
      ),
      port: chosenPort,
    }: {
      /** Membership of a cluster whose nodes share `credentials`; see `TestNatsCluster`. */
      cluster?: NatsClusterMembership;
      credentials?: Record<string, string>;
      port?: number;
    } = {},
  ): Promise<TestNatsServer> {
    const dir = mkdtempSync(join(tmpdir(), 'flowmesh-nats-'));
    const port = chosenPort ?? (await freePort());
    const monitorPort = await freePort();
    writeFileSync(join(dir, 'authorization.conf'), renderAuthorization(subjectPrefix));
    writeFileSync(
      join(dir, 'nats.conf'),
      [
        `listen: 127.0.0.1:${port}`,
        `http: 127.0.0.1:${monitorPort}`,
        // As deploy/base/nats/nats.conf: a run with the largest input travels whole in one reply.
        'max_payload: 8MB',
        `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
        ...(cluster ? clusterBlock(cluster) : []),
        'include ./authorization.conf',
        '',
      ].join('\n'),
    );
    const server = new TestNatsServer(port, monitorPort, dir, credentials);
    try {
      await server.resume();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  password(identity: NatsIdentity): string {
    return this.credentials[passwordVariableOf(identity)] ?? '';
  }

  output(): string {
    return this.log;
  }

  /** Starts the server (again) and resolves once it listens. */
  async resume(): Promise<void> {
    const child = spawn(natsServerBinary(), ['-c', join(this.dir, 'nats.conf')], {
      env: { PATH: process.env.PATH ?? '', ...this.credentials },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer) => (this.log = (this.log + chunk.toString()).slice(-50_000));
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`nats-server exited:\n${this.log}`);
        return (await portAnswers(this.port)) ? true : undefined;
      },
      { timeoutMs: 10_000, what: `nats-server on port ${this.port}` },
    );
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills the server at once, as a crash or a lost node would. */
  async kill(): Promise<void> {
    if (this.running) this.child?.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.running) {
      this.child?.kill('SIGTERM');
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
