import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { freePort } from './free-port.js';
import { waitFor } from './wait.util.js';

const run = promisify(execFile);

/** Debian installs each major version's programs under /usr/lib/postgresql/<major>/bin. */
function postgresBinDir(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) throw new Error('initdb not found: install postgresql or set POSTGRES_BIN_DIR');
  return join(root, majors[0]!, 'bin');
}

/**
 * A Postgres server of one harness's own (initdb into a temporary directory, loopback, trust), so a
 * chaos trial can crash and restart it without touching the machine's Postgres or anyone using it.
 * Postgres refuses to run as root, so as root its programs run as the `postgres` user.
 */
export class PrivatePostgres {
  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'flowmesh-pg-'));
    const server = new PrivatePostgres(dir, await freePort());
    if (process.getuid?.() === 0) chownSync(dir, ...(await server.postgresIds()));
    await server.exec('initdb', [
      '-D',
      server.dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    await server.resume();
    return server;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  databaseUrl(name: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  async createDatabase(name: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } finally {
      await client.end();
    }
  }

  /** Starts the server (again) and resolves once it accepts connections. */
  async resume(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dir}`,
      '-c max_connections=300',
      '-c shared_buffers=128MB',
    ].join(' ');
    await this.exec('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'postgres.log'),
      '-o',
      options,
      '-w',
      'start',
    ]);
    await waitFor(
      async () => {
        const client = new pg.Client({ connectionString: this.adminUrl });
        try {
          await client.connect();
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { timeoutMs: 30_000, what: `postgres on port ${this.port}` },
    );
  }

  /** Stops at once, without a checkpoint, as a crash would; the next start replays the log. */
  async crash(): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  }

  async stop(): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async postgresIds(): Promise<[number, number]> {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
  }

  private async exec(program: string, args: string[]): Promise<void> {
    const binary = join(postgresBinDir(), program);
    const asRoot = process.getuid?.() === 0;
    await run(asRoot ? 'runuser' : binary, asRoot ? ['-u', 'postgres', '--', binary, ...args] : args, {
      cwd: this.dir,
    });
  }
}
