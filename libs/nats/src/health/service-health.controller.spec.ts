import 'reflect-metadata';

import { Module } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { randomUUID } from 'node:crypto';

import type { RunningApp } from '../app-entry.js';
import { bootstrapService } from '../service-bootstrap.js';
import { HealthModule } from './health.module.js';
import { ReadinessChecks } from './readiness-checks.js';
import { ServiceHealthController } from './service-health.controller.js';

/** Stands for a service's own dependency (its database, say), which a test can take away. */
const dependency = { reachable: true };

@Module({
  imports: [HealthModule],
  controllers: [ServiceHealthController],
  providers: [
    {
      provide: ReadinessChecks,
      inject: [HealthIndicatorService],
      useFactory: (indicators: HealthIndicatorService) =>
        new ReadinessChecks([
          () =>
            indicators.check('dependency').attempt(() => {
              if (!dependency.reachable) throw new Error('connection refused');
            }),
        ]),
    },
  ],
})
class ProbedModule {}

describe('a service health port', () => {
  let app: RunningApp;
  let baseUrl: string;

  beforeAll(async () => {
    process.env.LOG_LEVEL = 'fatal';
    app = await bootstrapService(ProbedModule, {
      name: 'probed',
      queue: `unit_${randomUUID().slice(0, 8)}.probed`,
      nats: { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', identity: 'catalog' },
      healthPort: 0,
    });
    baseUrl = app.url!;
  });

  afterAll(async () => {
    await app?.close();
  });

  afterEach(() => {
    dependency.reachable = true;
  });

  async function get(path: string): Promise<{ status: number; body: unknown; cacheControl: string | null }> {
    const response = await fetch(`${baseUrl}${path}`);
    return {
      status: response.status,
      body: await response.json(),
      cacheControl: response.headers.get('cache-control'),
    };
  }

  it('is ready when the NATS server connection and the service dependencies answer', async () => {
    const ready = await get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ok',
      details: { nats: { status: 'up' }, dependency: { status: 'up' } },
    });
    expect(ready.cacheControl).toContain('no-store');
    expect(await get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('answers 503 with the details when a dependency is down, and stays live', async () => {
    dependency.reachable = false;
    const ready = await get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'error',
      info: { nats: expect.objectContaining({ status: 'up' }) },
      error: { dependency: expect.objectContaining({ status: 'down', message: 'connection refused' }) },
      details: expect.objectContaining({ dependency: expect.objectContaining({ status: 'down' }) }),
    });
    expect((await get('/health')).status).toBe(503);
    expect(await get('/health/live')).toMatchObject({
      status: 200,
      body: { status: 'ok', details: { event_loop: { status: 'up' } } },
    });
  });

  it('tells the process it shares its readiness, as one indicator named after it', async () => {
    await expect(app.ready()).resolves.toEqual({ probed: { status: 'up' } });
    dependency.reachable = false;
    await expect(app.ready()).resolves.toEqual({
      probed: {
        status: 'down',
        dependency: expect.objectContaining({ status: 'down', message: 'connection refused' }),
      },
    });
  });
});

describe('a service that shares its process', () => {
  it('serves no HTTP, leaves signals to the launcher, and answers its readiness to it', async () => {
    const signalListeners = process.listenerCount('SIGTERM');
    const shared = await bootstrapService(ProbedModule, {
      name: 'shared',
      queue: `unit_${randomUUID().slice(0, 8)}.shared`,
      nats: { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', identity: 'catalog' },
    });
    try {
      expect(shared.url).toBeUndefined();
      expect(process.listenerCount('SIGTERM')).toBe(signalListeners);
      await expect(shared.ready()).resolves.toEqual({ shared: { status: 'up' } });
    } finally {
      await shared.close();
    }
  });
});
