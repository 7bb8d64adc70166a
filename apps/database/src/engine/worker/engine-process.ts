import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from 'pino';

import { ChannelClosedError, EngineChannel } from './engine-channel.js';
import type {
  EngineCall,
  EngineEvent,
  EngineResults,
  ServiceCall,
  WireMessage,
  WorkerSettings,
} from './engine.messages.js';

const WORKER = fileURLToPath(new URL('./engine.worker.js', import.meta.url));
/** The shell sets the limit and becomes node (`exec`), so the worker's pid is the one spawned. */
const LIMITED = 'ulimit -d "$1" || exit 70; shift; exec "$@"';
/** libuv threads of the worker, unless UV_THREADPOOL_SIZE says otherwise. */
const THREAD_POOL_SIZE = 16;
/** How long a stopping worker may take to exit once its channel is closed. */
const EXIT_WAIT_MS = 10_000;

/**
 * What a bare Node process of this binary counts against RLIMIT_DATA before it does anything: V8
 * reserves its code range writable, 510 MiB of it in Node 24 (48 MiB of data in all in Node 20), none
 * of it resident. The worker's limit is that and `dataLimitBytes` on top, so the budget means the same
 * on every Node version: what the worker may allocate.
 */
let reservation: number | undefined;
export function nodeReservationBytes(): number {
  if (reservation === undefined) {
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        "process.stdout.write(/VmData:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1])",
      ],
      // Without NODE_OPTIONS: an inspector or a preload there would only slow the probe down.
      { encoding: 'utf8', timeout: 10_000, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const kib = Number(probe.stdout);
    if (probe.status !== 0 || !Number.isInteger(kib) || kib <= 0) {
      throw new Error(`Could not measure what a bare Node process reserves: ${probe.stderr || probe.error}`);
    }
    reservation = kib * 1024;
  }
  return reservation;
}

/** The engine worker ended while a call was waiting for it. */
export class EngineExitedError extends ChannelClosedError {
  constructor(message: string) {
    super(message);
    this.name = 'EngineExitedError';
  }
}

export interface EngineProcessOptions {
  settings: Omit<WorkerSettings, 'servicePid'>;
  /**
   * What the worker may allocate, DuckDB's memory, thread stacks and V8's heap together: its
   * RLIMIT_DATA is this beyond what a bare Node process reserves (`nodeReservationBytes`).
   */
  dataLimitBytes: number;
  logger: Logger;
  /** The worker's calls back to the service (a batch's storage budget). */
  serve: (call: ServiceCall) => Promise<unknown>;
  onEvent: (event: EngineEvent) => void;
}

type ServiceChannel = EngineChannel<EngineCall, EngineResults, ServiceCall>;

/**
 * Starts the engine worker (engine.worker.ts) under its memory limit and starts it again whenever
 * it dies: calls that were waiting on it fail with EngineExitedError (a batch in it was rolled back
 * by DuckDB's log, or committed just before), and new calls wait for the next one.
 */
export class EngineProcess {
  private current: Promise<ServiceChannel> = Promise.reject(new EngineExitedError('not started'));
  private child: ChildProcess | undefined;
  private stopped = false;
  private recentExits: number[] = [];

  constructor(private readonly options: EngineProcessOptions) {
    this.current.catch(() => undefined);
  }

  /** Fails when the worker cannot start: the service must not come up without it. */
  async start(): Promise<void> {
    this.current = this.spawn();
    await this.current;
  }

  /** Sends a call once a worker is up, waiting for a restart at most until `waitUntil` (epoch ms). */
  async call<C extends EngineCall>(
    call: C,
    waitUntil = Number.POSITIVE_INFINITY,
  ): Promise<EngineResults[C['op']]> {
    let timer: NodeJS.Timeout | undefined;
    const late = Number.isFinite(waitUntil)
      ? new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new EngineExitedError('The database engine is restarting.')),
            Math.max(0, waitUntil - Date.now()),
          );
        })
      : new Promise<never>(() => undefined);
    try {
      const channel = await Promise.race([this.current, late]);
      return await channel.call(call);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the channel, on which the worker exits, and waits for it (killing it if it lingers). */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }

  private spawn(): Promise<ServiceChannel> {
    const { settings, dataLimitBytes, logger } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(
        '/bin/sh',
        [
          '-c',
          LIMITED,
          'sh',
          String(Math.floor((nodeReservationBytes() + dataLimitBytes) / 1024)),
          process.execPath,
          WORKER,
          JSON.stringify({ ...settings, servicePid: process.pid }),
        ],
        {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          serialization: 'advanced',
          // Every DuckDB call runs on libuv's thread pool, sized when the worker starts: with the
          // default 4, a fifth concurrent batch would wait for one of them.
          env: {
            ...process.env,
            UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? String(THREAD_POOL_SIZE),
          },
        },
      );
      this.child = child;
      const channel: ServiceChannel = new EngineChannel(
        (message, sent) => child.send(message, sent),
        this.options.serve,
        this.options.onEvent,
      );
      let ready = false;
      child.on('message', (message: WireMessage) => {
        if (message.type !== 'ready') return channel.receive(message);
        ready = true;
        resolve(channel);
      });
      child.once('error', (error) => reject(error));
      child.once('exit', (code, signal) => {
        const error = new EngineExitedError(
          `The database engine stopped (${signal ?? `exit code ${code}`}) while the call ran.`,
        );
        channel.close(error);
        if (!ready) {
          reject(new Error(`The database engine did not start (${signal ?? `exit code ${code}`}).`));
          return;
        }
        if (this.stopped || this.child !== child) return;
        logger.error({ code, signal }, 'the database engine stopped; starting it again');
        this.restart();
      });
    });
  }

  /** Starts again at once, then backs off while the worker keeps dying (up to 5 s apart). */
  private restart(): void {
    const now = Date.now();
    this.recentExits = [...this.recentExits.filter((at) => now - at < 60_000), now];
    this.current = (async () => {
      for (let attempt = this.recentExits.length - 1; ; attempt += 1) {
        await sleep(attempt === 0 ? 0 : Math.min(5_000, 100 * 2 ** attempt));
        if (this.stopped) throw new EngineExitedError('The database service is stopping.');
        try {
          return await this.spawn();
        } catch (error) {
          this.options.logger.error({ err: error }, 'starting the database engine failed');
        }
      }
    })();
    this.current.catch(() => undefined);
  }
}
