import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { OutboundHttp } from '../outbound/outbound-http.js';
import { SlackProvider } from './slack.provider.js';

describe('SlackProvider', () => {
  const http = new OutboundHttp(true, 1_024);
  const slack = new SlackProvider(http);
  const paths: string[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      paths.push(request.url ?? '');
      // `localhost` is another origin than `127.0.0.1`, on the same server.
      if (request.url === '/moved')
        response.writeHead(308, { location: `${base.replace('127.0.0.1', 'localhost')}/elsewhere` }).end();
      else response.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await http.close();
    server.close();
  });

  const post = (path: string) =>
    slack.execute({
      connection: {
        id: 'c',
        organizationId: 'o',
        integrationId: 'slack',
        health: 'healthy',
        credentials: slack.connect({ webhookUrl: `${base}${path}` }).credentials,
      },
      action: 'post_message',
      input: { text: 'hello' },
      idempotencyKey: 'k',
      timeoutMs: 2_000,
    });

  it('posts to its own URL, and follows no redirect to another origin', async () => {
    expect(await post('/hook')).toMatchObject({ status: '200' });
    await expect(post('/moved')).rejects.toThrow(/redirected to another origin/);
    expect(paths).toEqual(['/hook', '/moved']);
  });
});
