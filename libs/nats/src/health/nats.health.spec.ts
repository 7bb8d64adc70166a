import { connect, type NatsConnection } from '@nats-io/transport-node';
import { HealthIndicatorService } from '@nestjs/terminus';
import { createServer, type Server, type Socket } from 'node:net';
import { pino } from 'pino';

import { JetStreamQueue } from '../jetstream/jetstream-queue.js';
import { defineJob } from '../jetstream/job-definition.js';
import { NATS_CHECK_TIMEOUT_MS, NatsHealthIndicator } from './nats.health.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * Speaks just enough of the NATS protocol for a client to connect: it answers the PING of the
 * handshake, and later ones only while `answering`.
 */
class FakeNatsServer {
  answering = true;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((socket) => {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    let connected = false;
    socket.write(
      'INFO {"server_id":"fake","version":"2.9.10","proto":1,"max_payload":1048576,"headers":true}\r\n',
    );
    socket.on('data', (chunk) => {
      const pings = chunk.toString().match(/PING\r\n/g)?.length ?? 0;
      for (let ping = 0; ping < pings; ping += 1) {
        if (!connected || this.answering) socket.write('PONG\r\n');
        connected = true;
      }
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `nats://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** Drops every client and refuses new ones, as a server that went away. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('NatsHealthIndicator', () => {
  const indicator = new NatsHealthIndicator(new HealthIndicatorService());
  const opened: NatsConnection[] = [];

  async function open(servers: string): Promise<NatsConnection> {
    const connection = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 60_000 });
    opened.push(connection);
    return connection;
  }

  afterAll(async () => {
    await Promise.all(opened.filter((nc) => !nc.isClosed()).map((nc) => nc.close()));
  });

  describe('pingCheck', () => {
    it('is up while the server answers a round trip', async () => {
      const result = await indicator.pingCheck('nats', await open(NATS_URL));
      expect(result).toEqual({ nats: { status: 'up', responseTime: expect.any(Number) } });
    });

    it('is down once the connection is closed', async () => {
      const connection = await open(NATS_URL);
      await connection.close();
      expect((await indicator.pingCheck('nats', connection)).nats).toMatchObject({
        status: 'down',
        message: expect.stringMatching(/closed/i),
      });
    });

    it('is down while the connection reconnects, though it is not closed', async () => {
      const server = new FakeNatsServer();
      const connection = await open(await server.listen());
      expect((await indicator.pingCheck('nats', connection)).nats.status).toBe('up');
      const disconnected = (async () => {
        for await (const status of connection.status()) if (status.type === 'disconnect') return;
      })();
      await server.stop();
      await disconnected;
      expect(connection.isClosed()).toBe(false);
      expect((await indicator.pingCheck('nats', connection)).nats).toMatchObject({
        status: 'down',
        message: expect.stringMatching(/disconnected/i),
      });
    });

    it('is down when the server stops answering, without waiting past its timeout', async () => {
      const server = new FakeNatsServer();
      const connection = await open(await server.listen());
      server.answering = false;
      const result = await indicator.pingCheck('nats', connection);
      expect(result.nats).toMatchObject({ status: 'down', message: expect.stringMatching(/timeout/) });
      expect(result.nats.responseTime).toBeLessThan(NATS_CHECK_TIMEOUT_MS + 500);
      await connection.close();
      await server.stop();
    });
  });

  describe('streamCheck', () => {
    const name = `HEALTHSPEC_${process.pid}_${Date.now().toString(36)}`;
    const definition = defineJob<{ id: string }>({
      name,
      stream: name,
      subject: `healthspec.${name}`,
      consumer: 'worker',
      ackWaitMs: 1_000,
      maxDeliver: 1,
      duplicateWindowMs: 60_000,
      messageId: (job) => job.id,
      parse: (data) => data as { id: string },
    });
    let queue: JetStreamQueue;

    beforeAll(async () => {
      queue = new JetStreamQueue(await open(NATS_URL), pino({ level: 'silent' }));
      await queue.ensure(definition);
    });

    afterAll(async () => {
      await queue.deleteStream(name);
    });

    it('is up with the jobs the stream holds while JetStream answers for it', async () => {
      await queue.publish(definition, { id: 'one' });
      expect(await indicator.streamCheck('runs_stream', queue, definition)).toEqual({
        runs_stream: { status: 'up', stream: name, jobs: 1, responseTime: expect.any(Number) },
      });
    });

    it('is down when the stream is gone', async () => {
      await queue.deleteStream(name);
      expect((await indicator.streamCheck('runs_stream', queue, definition)).runs_stream).toMatchObject({
        status: 'down',
        message: expect.stringMatching(/not found/i),
      });
    });
  });
});
