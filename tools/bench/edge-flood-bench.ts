/**
 * Edge flood benchmark: concurrent large request bodies that carry no credential, against the
 * gateway, while a prober asks `GET /api/health` every 20 ms. It reports how the flood was answered,
 * how long health took meanwhile, and the gateway's resident memory against its idle figure
 * (docs/reliability.md, "Nothing heavy before authentication").
 *
 *   npm run build && node dist/tools/bench/edge-flood-bench.js [--requests 20] [--mib 30] [--seconds 5] [--rounds 3]
 *
 * `--requests` clients each send one such request after another for `--seconds`. Each body is a JSON
 * array of strings holding one `"\u0000"`, the shape that made the gateway parse and walk 30 MB before
 * it looked for a credential.
 */
import { request } from 'node:http';

import { TestStack } from '#testing';

import { argument, benchContext, rssMiB } from './src/context.js';

const concurrent = Number(argument('requests', '20'));
const mib = Number(argument('mib', '30'));
const rounds = Number(argument('rounds', '3'));
const seconds = Number(argument('seconds', '5'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? Number.NaN;

function floodBody(bytes: number): Buffer {
  const item = `"${'x'.repeat(1022)}",`;
  const count = Math.floor(bytes / item.length);
  return Buffer.from(`[${item.repeat(count)}"\\u0000"]`);
}

/** One POST of `body`; resolves with its status (0 when the connection failed) once answered. */
function post(url: URL, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(response.statusCode ?? 0));
      },
    );
    // A server that answers before reading the whole body may close the socket under the writer.
    outgoing.on('error', () => resolve(0));
    outgoing.end(body);
  });
}

const stack = await TestStack.start({ LOG_LEVEL: 'warn' }, { services: ['catalog'] });
try {
  const gateway = stack.processes.get('gateway');
  const pid = gateway?.child.pid;
  if (!pid) throw new Error('no gateway process');
  const body = floodBody(mib * 1024 * 1024);
  const target = new URL('/api/v1/projects', stack.baseUrl);
  const health = `${stack.baseUrl}/api/health`;
  console.log(benchContext().line);
  console.log(
    `${concurrent} clients posting ${(body.length / 1048576).toFixed(1)} MiB bodies without a credential, one after another, for ${seconds} s\n`,
  );
  console.log('| round | answers | health p50 / p99 / max (ms), probes | RSS idle → peak (MiB) |');
  console.log('| --- | --- | --- | --- | --- |');
  for (let round = 1; round <= rounds; round += 1) {
    for (let warm = 0; warm < 20; warm += 1) await fetch(health).then((response) => response.text());
    await sleep(1000);
    const idle = rssMiB(pid);
    let peak = idle;
    let flooding = true;
    const sampler = (async () => {
      while (flooding) {
        peak = Math.max(peak, rssMiB(pid));
        await sleep(10);
      }
    })();
    const latencies: number[] = [];
    const prober = (async () => {
      while (flooding) {
        const began = performance.now();
        await fetch(health).then((response) => response.text());
        latencies.push(performance.now() - began);
        await sleep(20);
      }
    })();
    const until = performance.now() + seconds * 1000;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        while (performance.now() < until) statuses.push(await post(target, body));
      }),
    );
    flooding = false;
    await Promise.all([sampler, prober]);
    const answers = Object.entries(
      statuses.reduce<Record<number, number>>((counts, status) => {
        counts[status] = (counts[status] ?? 0) + 1;
        return counts;
      }, {}),
    )
      .map(([status, count]) => `${count} × ${status === '0' ? 'reset' : status}`)
      .join(', ');
    console.log(
      `| ${round} | ${answers} | ${percentile(latencies, 0.5).toFixed(1)} / ${percentile(latencies, 0.99).toFixed(1)} / ${Math.max(...latencies).toFixed(1)}, ${latencies.length} | ${idle.toFixed(0)} → ${peak.toFixed(0)} (+${(peak - idle).toFixed(0)}) |`,
    );
  }
} finally {
  await stack.stop();
}
