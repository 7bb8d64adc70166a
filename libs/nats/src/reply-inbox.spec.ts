import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { WORKING_HEADER } from '#contracts';
import { connect, Empty, errors, headers, type NatsConnection } from '@nats-io/transport-node';

import { ReplyInbox, ResponderLostError } from './reply-inbox.js';

const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * A nats-server of this spec's own, where user `limited` may publish only under `allowed.`: the
 * refusal of a publish is the server's, as the rendered permissions make it in production.
 */
async function startServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'reply-inbox-spec-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nats.conf'),
    `listen: 127.0.0.1:${port}
authorization {
  users = [
    { user: open, password: open }
    { user: limited, password: limited, permissions: {
        publish: { allow: ["allowed.>", "_INBOX.>"] }, subscribe: { allow: ["_INBOX.>"] } } }
  ]
}
`,
  );
  const child: ChildProcess = spawn(NATS_SERVER_BIN, ['-c', join(dir, 'nats.conf')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `nats://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await (await connect({ servers: url, user: 'open', pass: 'open' })).close();
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    stop: async () => {
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('ReplyInbox', () => {
  let server: { url: string; stop: () => Promise<void> };
  let responder: NatsConnection;
  let requester: NatsConnection;

  beforeAll(async () => {
    server = await startServer();
    responder = await connect({ servers: server.url, user: 'open', pass: 'open' });
    requester = await connect({ servers: server.url, user: 'open', pass: 'open' });
    responder.subscribe('echo', {
      callback: (_error, message) => {
        message.respond(message.data);
      },
    });
    responder.subscribe('slow', {
      callback: (_error, message) => {
        setTimeout(() => message.respond('late'), 300);
      },
    });
    // Says it is working every 100 ms for 800 ms, then answers.
    responder.subscribe('working', {
      callback: (_error, message) => {
        const working = headers();
        working.set(WORKING_HEADER, '1');
        const timer = setInterval(() => responder.publish(message.reply!, Empty, { headers: working }), 100);
        setTimeout(() => (clearInterval(timer), message.respond('done')), 800);
      },
    });
    // Takes the request and dies: says it is working twice, then nothing.
    responder.subscribe('dying', {
      callback: (_error, message) => {
        const working = headers();
        working.set(WORKING_HEADER, '1');
        setTimeout(() => responder.publish(message.reply!, Empty, { headers: working }), 100);
        setTimeout(() => responder.publish(message.reply!, Empty, { headers: working }), 200);
      },
    });
    await responder.flush();
  });

  afterAll(async () => {
    await requester?.close();
    await responder?.close();
    await server?.stop();
  });

  it('answers each request with its own reply, however many are waiting', async () => {
    const inbox = ReplyInbox.of(requester);
    const bodies = Array.from({ length: 200 }, (_, index) => `message ${index}`);
    const replies = await Promise.all(bodies.map((body) => inbox.request('echo', body, headers(), 2_000)));
    expect(replies.map((reply) => reply.string())).toEqual(bodies);
    expect(ReplyInbox.of(requester)).toBe(inbox);
  });

  it('says so at once when nobody serves the subject', async () => {
    const asked = Date.now();
    await expect(ReplyInbox.of(requester).request('nobody', '{}', headers(), 5_000)).rejects.toBeInstanceOf(
      errors.NoRespondersError,
    );
    expect(Date.now() - asked).toBeLessThan(2_000);
  });

  it('times out, and a reply that comes later reaches nobody', async () => {
    const inbox = ReplyInbox.of(requester);
    await expect(inbox.request('slow', '{}', headers(), 100)).rejects.toBeInstanceOf(errors.TimeoutError);
    // The late reply arrives while this request waits for its own, which it must not be taken for.
    const echoed = await inbox.request('echo', 'mine', headers(), 1_000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(echoed.string()).toBe('mine');
  });

  it("fails a request the server's permissions refuse, without waiting for its timeout", async () => {
    const limited = await connect({ servers: server.url, user: 'limited', pass: 'limited' });
    try {
      const asked = Date.now();
      const refused = ReplyInbox.of(limited).request('echo', '{}', headers(), 5_000);
      await expect(refused).rejects.toBeInstanceOf(errors.PermissionViolationError);
      await expect(refused).rejects.toThrow(/Permissions Violation/);
      expect(Date.now() - asked).toBeLessThan(2_000);
    } finally {
      await limited.close();
    }
  });

  it('waits past the silence while the server says it is working, and takes only the answer for it', async () => {
    const reply = await ReplyInbox.of(requester).request('working', '{}', headers(), 5_000, 300);
    expect(reply.string()).toBe('done');
  });

  it('gives up on a server that went silent long before the timeout', async () => {
    const asked = Date.now();
    const lost = ReplyInbox.of(requester).request('dying', '{}', headers(), 10_000, 300);
    await expect(lost).rejects.toBeInstanceOf(ResponderLostError);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(500);
    expect(Date.now() - asked).toBeLessThan(2_000);
  });

  it('fails the requests still waiting when the connection closes', async () => {
    const closing = await connect({ servers: server.url, user: 'open', pass: 'open' });
    const waiting = ReplyInbox.of(closing).request('slow', '{}', headers(), 5_000);
    await closing.close();
    await expect(waiting).rejects.toBeInstanceOf(Error);
    await expect(waiting).rejects.not.toBeInstanceOf(errors.TimeoutError);
  });
});
