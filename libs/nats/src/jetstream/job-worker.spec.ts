import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';

import { ExecutionSlots } from './execution-slots.js';
import { JetStreamQueue } from './jetstream-queue.js';
import { defineJob, type JobDefinition, JobOutcomes } from './job-definition.js';
import { redeliveryDelayMs } from './job-worker.js';

/** The queue adapter against a real NATS server with JetStream, on streams of its own. */
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

interface TestJob {
  id: string;
  copy?: number;
}

let counter = 0;
function testJob(overrides: Partial<JobDefinition<TestJob>> = {}): JobDefinition<TestJob> {
  const name = `JOBSPEC_${process.pid}_${Date.now().toString(36)}_${(counter += 1)}`;
  return defineJob<TestJob>({
    name,
    stream: name,
    subject: `jobspec.${name}`,
    consumer: 'worker',
    ackWaitMs: 1_000,
    maxDeliver: 5,
    duplicateWindowMs: 60_000,
    messageId: (job) => `job:${job.id}:${job.copy ?? 0}`,
    parse: (data) => data as TestJob,
    ...overrides,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

describe('JetStreamQueue', () => {
  let nats: NatsConnection;
  let queue: JetStreamQueue;
  const streams: string[] = [];

  beforeAll(async () => {
    nats = await connect({ servers: NATS_URL });
    queue = new JetStreamQueue(nats, pino({ level: 'silent' }));
  });

  afterAll(async () => {
    for (const stream of streams) await queue.deleteStream(stream);
    await nats.close();
  });

  async function ready(definition: JobDefinition<TestJob>): Promise<JobDefinition<TestJob>> {
    streams.push(definition.stream);
    await queue.ensure(definition);
    return definition;
  }

  it('stores a job once per message id', async () => {
    const job = await ready(testJob());
    expect((await queue.publish(job, { id: 'a' })).duplicate).toBe(false);
    expect((await queue.publish(job, { id: 'a' })).duplicate).toBe(true);
    expect((await queue.publish(job, { id: 'a', copy: 1 })).duplicate).toBe(false);
    // Making sure again (another replica starting) changes nothing.
    await queue.ensure(job);
  });

  it('keeps a stream on as many servers as it is told, and moves an existing one to that number', async () => {
    const job = await ready(testJob());
    const manager = await jetstreamManager(nats);
    expect((await manager.streams.info(job.stream)).config.num_replicas).toBe(1);
    const clustered = new JetStreamQueue(nats, pino({ level: 'silent' }), 3);

    // A new stream of three replicas needs a cluster: a single server refuses it.
    await expect(clustered.ensure(testJob())).rejects.toThrow(/replicas > 1 not supported/);
    // An existing stream is updated to the number asked (a cluster then places the copies).
    await clustered.ensure(job);
    expect((await manager.streams.info(job.stream)).config.num_replicas).toBe(3);
  });

  it('waits at start for a server whose JetStream is not up yet, and gives up on one that stays down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'job-worker-spec-'));
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const serve = (withJetStream: boolean): ChildProcess =>
      spawn(
        process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server',
        ['-a', '127.0.0.1', '-p', String(port), ...(withJetStream ? ['-js', '-sd', dir] : [])],
        { stdio: 'ignore' },
      );
    const stopped = (child: ChildProcess) =>
      new Promise<void>((resolve) =>
        child.exitCode === null ? child.once('exit', () => resolve()) : resolve(),
      );
    let server = serve(false);
    const starting = await (async () => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await connect({
            servers: `nats://127.0.0.1:${port}`,
            maxReconnectAttempts: -1,
            reconnectTimeWait: 100,
          });
        } catch (error) {
          if (attempt > 100) throw error;
          await sleep(50);
        }
      }
    })();
    try {
      const warnings: string[] = [];
      const logger = pino(
        { level: 'warn' },
        { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) },
      );
      const waiting = new JetStreamQueue(starting, logger);
      // Pauses of 250, 500, 1000 ms fit a 4 s budget with room for a slow first answer on a busy CI host.
      await expect(waiting.ensure(testJob(), { withinMs: 4_000 })).rejects.toThrow(/not enabled/);
      // It asked again before giving up.
      expect(
        warnings.filter((message) => message === 'JetStream is not ready yet; trying again').length,
      ).toBeGreaterThanOrEqual(2);

      const job = testJob();
      const ensured = waiting.ensure(job, { withinMs: 30_000 });
      await sleep(500);
      server.kill();
      await stopped(server);
      server = serve(true);
      await ensured;
      const manager = await jetstreamManager(starting);
      expect((await manager.streams.info(job.stream)).config.subjects).toEqual([job.subject]);
    } finally {
      await starting.close();
      server.kill();
      await stopped(server);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs at most `concurrency` handlers at once and acks every job', async () => {
    const job = await ready(testJob());
    let active = 0;
    let peak = 0;
    const seen: string[] = [];
    const worker = queue.work(
      job,
      async (payload) => {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(30);
        seen.push(payload.id);
        active -= 1;
        return JobOutcomes.ack;
      },
      { concurrency: 3, pullExpiresMs: 1_000 },
    );
    for (let index = 0; index < 12; index += 1) await queue.publish(job, { id: String(index) });
    await until(() => seen.length === 12);
    await worker.stop();
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual(Array.from({ length: 12 }, (_, index) => String(index)).sort());
    // Acked jobs leave the work queue, so a new worker finds nothing.
    const again: string[] = [];
    const second = queue.work(job, async (payload) => (again.push(payload.id), JobOutcomes.ack), {
      concurrency: 1,
      pullExpiresMs: 1_000,
    });
    await sleep(1_500);
    await second.stop();
    expect(again).toEqual([]);
  });

  it('leaves `reserved` shared slots free for the process, and pulls again once more are free', async () => {
    const job = await ready(testJob());
    const slots = new ExecutionSlots(4);
    let active = 0;
    let peak = 0;
    const seen: string[] = [];
    const worker = queue.work(
      job,
      async (payload) => {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(30);
        seen.push(payload.id);
        active -= 1;
        return JobOutcomes.ack;
      },
      { concurrency: 4, slots, reserved: 2, pullExpiresMs: 1_000 },
    );
    for (let index = 0; index < 10; index += 1) await queue.publish(job, { id: String(index) });
    await until(() => seen.length === 10);
    expect(peak).toBe(2);
    // The process's own work takes the kept slots and one more: the worker waits until two are free.
    expect(slots.tryTake() && slots.tryTake() && slots.tryTake()).toBe(true);
    // A pull already open when they were taken may still deliver: let it expire first.
    await sleep(1_200);
    await queue.publish(job, { id: 'late' });
    await sleep(1_200);
    expect(seen).not.toContain('late');
    // Two taken still leave only the two kept free; with one more free it pulls.
    slots.release();
    await sleep(300);
    expect(seen).not.toContain('late');
    slots.release();
    await until(() => seen.includes('late'));
    await worker.stop();
  });

  it('reads a changing reserve again while it waits, though no slot frees', async () => {
    const job = await ready(testJob());
    const slots = new ExecutionSlots(4);
    let reserve = 2;
    const seen: string[] = [];
    // The process's own work holds two slots: with two more kept, nothing is pulled.
    expect(slots.tryTake() && slots.tryTake()).toBe(true);
    const worker = queue.work(job, async (payload) => (seen.push(payload.id), JobOutcomes.ack), {
      concurrency: 4,
      slots,
      reserved: () => reserve,
      pullExpiresMs: 1_000,
    });
    await queue.publish(job, { id: 'waiting' });
    await sleep(600);
    expect(seen).toEqual([]);
    reserve = 0;
    await until(() => seen.includes('waiting'));
    await worker.stop();
  });

  it('delivers a job again after a retry outcome or a failing handler', async () => {
    // Redeliveries here come from the naks alone, but on a busy machine JetStream may hand the
    // worker one delivery more than the naks ask for (CI saw [1, 2, 4] and [1, 2, 1, 4]): so the
    // test follows the outcomes, not the exact counts. The first delivery is retried, the second
    // fails, and the job is delivered until it is acked, once.
    const job = await ready(testJob({ ackWaitMs: 10_000 }));
    const deliveries: number[] = [];
    let acked = 0;
    const worker = queue.work(
      job,
      async (_payload, delivery) => {
        deliveries.push(delivery.deliveryCount);
        if (deliveries.length === 1) return JobOutcomes.retry(100);
        if (deliveries.length === 2) throw new Error('flaky');
        acked += 1;
        return JobOutcomes.ack;
      },
      { concurrency: 1, pullExpiresMs: 1_000 },
    );
    await queue.publish(job, { id: 'r' });
    await until(() => acked === 1);
    await sleep(200);
    await worker.stop();
    expect(deliveries.slice(0, 2)).toEqual([1, 2]);
    expect(deliveries.length).toBeGreaterThanOrEqual(3);
    // Acked once, and never delivered again after it.
    expect(acked).toBe(1);
  });

  it('keeps a job whose handler outlasts the ack wait, with in-progress acks', async () => {
    const job = await ready(testJob({ ackWaitMs: 1_000 }));
    const deliveries: number[] = [];
    const worker = queue.work(
      job,
      async (_payload, delivery) => {
        deliveries.push(delivery.deliveryCount);
        await sleep(3_000);
        return JobOutcomes.ack;
      },
      { concurrency: 2, pullExpiresMs: 1_000 },
    );
    await queue.publish(job, { id: 'long' });
    await until(() => deliveries.length === 1);
    await sleep(3_500);
    await worker.stop();
    expect(deliveries).toEqual([1]);
  });

  it('hands running jobs back when stopped past its grace', async () => {
    const job = await ready(testJob({ ackWaitMs: 30_000 }));
    const aborted: boolean[] = [];
    const first = queue.work(
      job,
      (_payload, delivery) =>
        new Promise((resolve) => {
          delivery.signal.addEventListener('abort', () => {
            aborted.push(true);
            resolve(JobOutcomes.retry(0));
          });
        }),
      { concurrency: 1, pullExpiresMs: 1_000 },
    );
    await queue.publish(job, { id: 'handover' });
    await sleep(300);
    await first.stop(100);
    expect(aborted).toEqual([true]);
    // Far sooner than the 30 s ack wait, another worker has it.
    const taken: number[] = [];
    const second = queue.work(
      job,
      async (_payload, delivery) => (taken.push(delivery.deliveryCount), JobOutcomes.ack),
      {
        concurrency: 1,
        pullExpiresMs: 1_000,
      },
    );
    await until(() => taken.length === 1, 5_000);
    await second.stop();
    expect(taken).toEqual([2]);
  });
});

describe('redeliveryDelayMs', () => {
  it('doubles from a second up to a minute', () => {
    expect([1, 2, 3, 7, 20].map(redeliveryDelayMs)).toEqual([1_000, 2_000, 4_000, 60_000, 60_000]);
  });
});
