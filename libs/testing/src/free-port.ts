import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A port that nothing listens on, for a service a test starts. It is taken below the kernel's
 * ephemeral range: a port from `listen(0)` comes from that range, and between closing it and the
 * service binding it, any outgoing connection on the machine (Postgres, NATS, fetch) may be handed
 * the same port, which failed a CI run with EADDRINUSE. Each Jest worker walks a block of its own,
 * from a random start, so parallel workers and runs do not pick the same port.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < BLOCK_SIZE; attempt++) {
    const port = nextCandidate();
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${blockStart}-${blockStart + BLOCK_SIZE - 1}`);
}

const LOWEST_PORT = 10_000;
const BLOCKS = 12;

function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > LOWEST_PORT + BLOCKS * 100 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const BLOCK_SIZE = Math.floor((ephemeralRangeStart() - LOWEST_PORT) / BLOCKS);
const worker = Number(process.env.JEST_WORKER_ID ?? 0) % BLOCKS;
const blockStart = LOWEST_PORT + worker * BLOCK_SIZE;
let offset = Math.floor(Math.random() * BLOCK_SIZE);

function nextCandidate(): number {
  offset = (offset + 1) % BLOCK_SIZE;
  return blockStart + offset;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
