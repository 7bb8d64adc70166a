import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connect } from '@nats-io/transport-node';

import { freePort } from './free-port.js';
import { waitFor } from './wait.util.js';

const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A NATS server with JetStream of one test's own, for taking NATS away from the processes that use
 * it (the shared one serves every other test). It starts again on the same port and store, so
 * streams survive and clients reconnect as they would to a restarted server.
 */
export class TestNatsServer {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<TestNatsServer> {
    const server = new TestNatsServer(await freePort(), mkdtempSync(join(tmpdir(), 'flowmesh-nats-')));
    await server.resume();
    return server;
  }

  /** Starts the server (again) and resolves once a client can connect. */
  async resume(): Promise<void> {
    const child = spawn(
      NATS_SERVER_BIN,
      ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      { stdio: 'ignore' },
    );
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${NATS_SERVER_BIN} exited with ${child.exitCode}`);
        const client = await connect({ servers: this.url, reconnect: false });
        await client.close();
        return true;
      },
      { what: `nats-server on port ${this.port}` },
    );
  }

  /** Kills the server at once, as a crash or a lost node would. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
