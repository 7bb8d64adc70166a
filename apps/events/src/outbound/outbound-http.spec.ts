import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { DomainException } from '#common';

import { isPublicAddress, OutboundHttp } from './outbound-http.js';

describe('OutboundHttp', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/redirect') {
        response.writeHead(302, { location: `http://localhost:${port}/target` }).end();
      } else if (request.url === '/big') {
        response.end('x'.repeat(5_000));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => server.close());

  it('knows public addresses from the others, whatever IPv6 form carries an IPv4 one', () => {
    const publicOnes = ['8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808'];
    expect(publicOnes.filter((address) => !isPublicAddress(address))).toEqual([]);
    const others = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '0.0.0.0',
      '100.64.0.1',
      // IPv4-mapped (::ffff:0:0/96), in both spellings.
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      // IPv4-compatible (::/96), deprecated but still routed by some stacks.
      '::7f00:1',
      '::a9fe:a9fe',
      '::127.0.0.1',
      '::a00:1',
      '::808:808',
      // NAT64's well-known prefix with a private IPv4, and its local-use prefix.
      '64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::a00:1',
      // 6to4 and Teredo: relays to an IPv4 address (deprecated; refused whatever they carry).
      '2002:7f00:1::1',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      // Documentation, discard-only and the IPv4-translated (SIIT) form.
      '2001:db8::1',
      '100::1',
      '::ffff:0:7f00:1',
      'not an address',
    ];
    expect(others.filter((address) => isPublicAddress(address))).toEqual([]);
  });

  const get = (http: OutboundHttp, path: string, host = '127.0.0.1') =>
    http.send({ method: 'GET', url: `http://${host}:${port}${path}`, headers: {}, timeoutMs: 2_000 });

  it('refuses private addresses, by literal, by name and on a redirect, before connecting', async () => {
    const guarded = new OutboundHttp(false, 1_000_000);
    try {
      for (const host of [
        '127.0.0.1',
        'localhost',
        '[::1]',
        '[::7f00:1]',
        '[::ffff:7f00:1]',
        '[::a9fe:a9fe]',
      ]) {
        await expect(get(guarded, '/', host)).rejects.toThrow(/private networks are not allowed/);
      }
    } finally {
      await guarded.close();
    }
    const open = new OutboundHttp(true, 1_000_000);
    try {
      expect(await get(open, '/redirect')).toMatchObject({ status: 200, body: '{"ok":true}' });
    } finally {
      await open.close();
    }
  });

  it('fails an answer longer than the limit', async () => {
    const small = new OutboundHttp(true, 1_024);
    try {
      const failure = await get(small, '/big').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DomainException);
      expect((failure as Error).message).toMatch(/more than 1024 bytes/);
    } finally {
      await small.close();
    }
  });
});

describe('OutboundHttp cancelled from outside', () => {
  it("aborts a request the app holds: the app sees its connection closed, and the call fails with the signal's reason", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    // An app that never answers.
    const server = createServer((request) => {
      request.socket.on('close', closed);
      arrived();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const http = new OutboundHttp(true, 1_000_000);
    try {
      const cancel = new AbortController();
      const call = http
        .send({
          method: 'POST',
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`,
          headers: {},
          body: '{}',
          timeoutMs: 60_000,
          signal: cancel.signal,
        })
        .catch((error: unknown) => error);
      await requestArrived;
      const reason = DomainException.runCancelled('Cancelled by ada@example.com: wrong input.');
      cancel.abort(reason);
      await connectionClosed;
      expect(await call).toBe(reason);
    } finally {
      await http.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('OutboundHttp credentials and redirects', () => {
  interface Seen {
    path: string;
    headers: IncomingHttpHeaders;
  }
  const seen: Record<'a' | 'b', Seen[]> = { a: [], b: [] };
  const servers: Server[] = [];
  const origins = { a: '', b: '' };
  const http = new OutboundHttp(true, 1_000_000);

  beforeAll(async () => {
    for (const name of ['a', 'b'] as const) {
      const server = createServer((request, response) => {
        seen[name].push({ path: request.url ?? '', headers: request.headers });
        const to = /^\/to-(a|b)(\/.*)$/.exec(request.url ?? '');
        if (to) response.writeHead(307, { location: `${origins[to[1] as 'a' | 'b']}${to[2]}` }).end();
        else response.end('ok');
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      origins[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      servers.push(server);
    }
  });

  afterAll(async () => {
    await http.close();
    for (const server of servers) server.close();
  });

  beforeEach(() => {
    seen.a.length = 0;
    seen.b.length = 0;
  });

  const send = (url: string, extra: { sameOriginOnly?: boolean } = {}) =>
    http.send({
      method: 'POST',
      url,
      headers: { authorization: 'Bearer caller', 'x-input': 'kept' },
      body: '{}',
      timeoutMs: 2_000,
      credentials: { headers: { 'x-token': 'admin-token' }, origins: [origins.a] },
      ...extra,
    });

  it('sends the credentials to an allowed origin, also after a redirect within it', async () => {
    const answer = await send(`${origins.a}/to-a/landing`);
    expect(answer).toMatchObject({ status: 200, url: new URL(`${origins.a}/landing`) });
    expect(seen.a.map(({ path, headers }) => [path, headers['x-token'], headers.authorization])).toEqual([
      ['/to-a/landing', 'admin-token', 'Bearer caller'],
      ['/landing', 'admin-token', 'Bearer caller'],
    ]);
  });

  it('sends none of them to another origin, asked directly or reached by a redirect', async () => {
    await send(`${origins.b}/direct`);
    await send(`${origins.a}/to-b/redirected`);
    expect(seen.a.map(({ headers }) => headers['x-token'])).toEqual(['admin-token']);
    expect(seen.b.map(({ path }) => path)).toEqual(['/direct', '/redirected']);
    const [direct, redirected] = seen.b;
    expect(direct!.headers).toMatchObject({ authorization: 'Bearer caller', 'x-input': 'kept' });
    expect(direct!.headers['x-token']).toBeUndefined();
    // The caller's own authentication does not cross origins on a redirect either; other headers do.
    expect(redirected!.headers['x-token']).toBeUndefined();
    expect(redirected!.headers.authorization).toBeUndefined();
    expect(redirected!.headers['x-input']).toBe('kept');
  });

  it('refuses a cross-origin redirect when the request may only reach its own origin', async () => {
    await expect(send(`${origins.a}/to-b/elsewhere`, { sameOriginOnly: true })).rejects.toThrow(
      /redirected to another origin/,
    );
    expect(seen.b).toEqual([]);
    expect((await send(`${origins.a}/to-a/same`, { sameOriginOnly: true })).status).toBe(200);
  });
});
