import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

import { freePort } from './free-port.js';

const ephemeralStart = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

describe('freePort', () => {
  it('gives ports below the ephemeral range that a server can listen on', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port).toBeLessThan(ephemeralStart);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('skips a port something listens on', async () => {
    // The walk goes one port at a time, so the port after the last one given is the next candidate.
    const taken = (await freePort()) + 1;
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(taken, '127.0.0.1', resolve));
    try {
      expect(await freePort()).not.toBe(taken);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
