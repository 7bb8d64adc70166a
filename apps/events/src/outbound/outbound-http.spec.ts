import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
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

  it('knows public addresses from the others', () => {
    for (const address of ['8.8.8.8', '2001:4860:4860::8888']) expect(isPublicAddress(address)).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      '100.64.0.1',
    ]) {
      expect(isPublicAddress(address)).toBe(false);
    }
  });

  const get = (http: OutboundHttp, path: string, host = '127.0.0.1') =>
    http.send({ method: 'GET', url: `http://${host}:${port}${path}`, headers: {}, timeoutMs: 2_000 });

  it('refuses private addresses, by literal, by name and on a redirect, before connecting', async () => {
    const guarded = new OutboundHttp(false, 1_000_000);
    try {
      for (const attempt of [get(guarded, '/'), get(guarded, '/', 'localhost'), get(guarded, '/', '[::1]')]) {
        await expect(attempt).rejects.toThrow(/private/);
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
