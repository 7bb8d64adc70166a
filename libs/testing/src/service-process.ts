import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { waitFor } from './wait.util.js';

export const WORKSPACE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..').replace(
  /\/dist$/,
  '',
);

/**
 * The built entry point of an app: tests run what `npm start` runs, not the sources. `root` is the
 * checkout whose build runs (a benchmark may compare another one's).
 */
export function appEntry(app: string, entry = 'main', root = WORKSPACE_ROOT): string {
  return join(root, 'dist', 'apps', app, 'src', `${entry}.js`);
}

export function isBuilt(app: string): boolean {
  return existsSync(appEntry(app));
}

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process wrote, for a failing test to show. */
  output(): string;
  /** Waits for the process to exit after SIGTERM (or SIGKILL after a grace period). */
  stop(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  name?: string;
  env: Record<string, string>;
  /** HTTP URL that answers 200 once the process is ready. */
  readyUrl: string;
  timeoutMs?: number;
  /** The checkout whose build runs; this one by default. */
  root?: string;
}

export async function startService(app: string, options: StartOptions): Promise<ServiceProcess> {
  const name = options.name ?? app;
  const root = options.root ?? WORKSPACE_ROOT;
  const child = spawn(process.execPath, [appEntry(app, 'main', root)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // TEST_LOG_DIR keeps every line a service wrote, for reading after a failed run.
  const logFile = process.env.TEST_LOG_DIR
    ? join(process.env.TEST_LOG_DIR, `${name}-${child.pid}.log`)
    : undefined;
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
    if (logFile) appendFileSync(logFile, chunk);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const handle: ServiceProcess = {
    name,
    child,
    output: () => output,
    async stop() {
      if (hasExited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
    async kill(signal = 'SIGKILL') {
      if (hasExited) return;
      child.kill(signal);
      await exited;
    },
  };

  try {
    await waitFor(
      async () => {
        if (hasExited) throw new Error(`${name} exited during start-up:\n${output}`);
        const response = await fetch(options.readyUrl).catch(() => undefined);
        return response?.ok ? true : undefined;
      },
      { timeoutMs: options.timeoutMs ?? 60_000, what: `${name} to become ready` },
    );
  } catch (error) {
    await handle.kill();
    throw new Error(`${String(error)}\n--- ${name} output ---\n${output}`);
  }
  return handle;
}

/** Migrates `apps` in one process, at once, as the deployment's migrate Job does. */
export function runMigrations(apps: readonly string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [appEntry('all-in-one', 'migrate')], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env, SERVICES: apps.join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${apps.join(', ')} migrations failed (exit ${code}):\n${output}`)),
    );
  });
}
