import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';

import { collectProcessMetrics, sendMetrics } from '#common';
import type { AppEntry, RunningApp } from '#nats';
import type { Logger } from 'pino';

import type { AppName, LauncherConfig } from './launcher.config.js';

/**
 * Runs several apps in this process, each as its own Nest application with its own NATS identity,
 * connections, queue group and database pool, exactly as when each has a process to itself: only the
 * process is shared. It migrates them, starts the services, then the gateway in front of them, and
 * answers for all of them: one readiness probe, one line when everything is ready, one orderly stop.
 */
export async function launch(
  config: LauncherConfig,
  logger: Logger,
  /** Runs once every app has closed, before the process exits (tracing exports its last spans). */
  beforeExit: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const started = performance.now();
  const running: RunningApp[] = [];
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'Flowmesh stops at once: a second signal came while it was stopping');
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, 'Flowmesh is stopping');
    // A close that never ends (NATS unreachable, say) must not keep the process from exiting.
    setTimeout(() => {
      logger.error({ timeoutMs: config.STOP_TIMEOUT_MS }, 'Flowmesh did not stop in time; exiting anyway');
      process.exit(1);
    }, config.STOP_TIMEOUT_MS).unref();
    const closed = await closeAll(running, logger);
    await beforeExit();
    process.exit(closed ? 0 : 1);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));

  const entries = await Promise.all(config.apps.map(loadEntry));
  if (config.MIGRATE_ON_START === 'true') await Promise.all(entries.map((entry) => entry.migrate?.()));
  let url: string;
  try {
    const services = entries.filter((entry) => entry.name !== 'gateway');
    const outcomes = await Promise.allSettled(services.map((entry) => entry.start({ standalone: false })));
    for (const outcome of outcomes) if (outcome.status === 'fulfilled') running.push(outcome.value);
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    const gateway = entries.find((entry) => entry.name === 'gateway');
    if (gateway) {
      const app = await gateway.start({ standalone: false, companions: [...running] });
      running.push(app);
      url = app.url ?? '';
    } else {
      const probes = await serveProbes(config.HEALTH_PORT, [...running], () => stopping);
      running.unshift(probes);
      url = probes.url ?? '';
    }
  } catch (error) {
    await closeAll(running, logger);
    throw error;
  }
  if (stopping) return;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  logger.info(
    { url, apps: config.apps, seconds: Number(seconds) },
    `Flowmesh is ready on ${url}: ${config.apps.join(', ')} in one process, started in ${seconds} s`,
  );
}

export async function loadEntry(name: AppName): Promise<AppEntry> {
  // Found by path, not imported by name: apps never import one another, and only the chosen ones load.
  const module = (await import(new URL(`../../${name}/src/${name}.app.js`, import.meta.url).href)) as {
    default: AppEntry;
  };
  return module.default;
}

/**
 * Last started, first stopped: the gateway stops taking requests before the services behind it go.
 * Answers whether every app closed cleanly.
 */
async function closeAll(running: RunningApp[], logger: Logger): Promise<boolean> {
  let clean = true;
  for (const app of [...running].reverse()) {
    try {
      await app.close();
      logger.info({ app: app.name }, `${app.name} stopped`);
    } catch (error) {
      clean = false;
      logger.error({ err: error, app: app.name }, `${app.name} failed to stop`);
    }
  }
  return clean;
}

/**
 * The probes of a process without the gateway: `/health/live`, and `/health` or `/health/ready`. Like
 * Terminus's, both answer 503 `shutting_down` once the process is stopping. `/metrics` shows the
 * metrics of every app in the process (with the gateway, its `METRICS_PORT` does).
 */
async function serveProbes(
  port: number,
  apps: readonly RunningApp[],
  stopping: () => boolean,
): Promise<RunningApp> {
  collectProcessMetrics();
  const ready = async () => Object.assign({}, ...(await Promise.all(apps.map((app) => app.ready()))));
  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    const answer = (status: number, body: unknown) =>
      response
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(body));
    if (request.method !== 'GET') return answer(405, { status: 'error' });
    if (path === '/metrics') return sendMetrics(response);
    if (path !== '/health/live' && path !== '/health' && path !== '/health/ready')
      return answer(404, { status: 'error' });
    if (stopping()) return answer(503, { status: 'shutting_down' });
    if (path === '/health/live') return answer(200, { status: 'ok' });
    void ready().then((details: Record<string, { status: string }>) => {
      const up = Object.values(details).every((detail) => detail.status === 'up');
      answer(up ? 200 : 503, { status: up ? 'ok' : 'error', details });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', resolve);
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
  return {
    name: 'probes',
    url,
    ready,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
