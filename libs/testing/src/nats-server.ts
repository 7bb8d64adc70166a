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

export interface RunningNatsServer {
  url: string;
  /** `NATS_<IDENTITY>_PASSWORD` for every identity: what the stack's processes connect with. */
  credentials: Record<string, string>;
  password(identity: NatsIdentity): string;
  output(): string;
  stop(): Promise<void>;
}

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * A NATS server with JetStream of the test run's own, on a free port, authenticated and with each
 * identity's permissions rendered from the subject catalog exactly as `deploy/` renders them.
 */
export async function startNatsServer(subjectPrefix: string): Promise<RunningNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'flowmesh-nats-'));
  const port = await freePort();
  const credentials = Object.fromEntries(
    NATS_IDENTITIES.map((identity) => [passwordVariableOf(identity), generateNatsPassword()]),
  );
  writeFileSync(join(dir, 'authorization.conf'), renderAuthorization(subjectPrefix));
  writeFileSync(
    join(dir, 'nats.conf'),
    [
      `listen: 127.0.0.1:${port}`,
      `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
      'include ./authorization.conf',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(natsServerBinary(), ['-c', join(dir, 'nats.conf')], {
    env: { PATH: process.env.PATH ?? '', ...credentials },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000));
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  const server: RunningNatsServer = {
    url: `nats://127.0.0.1:${port}`,
    credentials,
    password: (identity) => credentials[passwordVariableOf(identity)] ?? '',
    output: () => output,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`nats-server exited:\n${output}`);
        return (await portAnswers(port)) ? true : undefined;
      },
      { timeoutMs: 10_000, what: 'nats-server to listen' },
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
