/**
 * Idle watchers: what clients that follow runs cost the gateway while nothing changes. It opens
 * `--streams` run streams (`GET /api/v1/runs/{id}/stream`), each on a run of its own that waits on a
 * one-hour delay (a stream stays open while its run waits), then samples the gateway's CPU and memory
 * for `--seconds` with every client connected, and checks that every stream is still open. A
 * `?wait=N` request watches its run through the same per-run subscription, so it costs the same.
 *
 *   npm run build && node dist/tools/bench/idle-waiters-bench.js [--streams 2000] [--seconds 20]
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

import { chainOf, createOrganization, nodes, TestStack, waitFor } from '#testing';

import { argument } from './src/context.js';

const streams = Number(argument('streams', '2000'));
const seconds = Number(argument('seconds', '20'));

/** CPU seconds (user + system) and resident MiB of a process, from /proc. */
function usageOf(pid: number): { cpu: number; rssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { cpu: (Number(fields[11]) + Number(fields[12])) / 100, rssMiB: rssKiB / 1024 };
}

/** Opens a request that stays open; `open()` says whether the server still holds it. */
function hold(url: string, key: string): Promise<{ open: () => boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    let ended = false;
    const outgoing = request(
      url,
      { headers: { authorization: `Bearer ${key}` }, agent: false },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}`));
        response.on('data', () => undefined);
        response.on('end', () => (ended = true));
        response.on('error', () => (ended = true));
        resolve({ open: () => !ended, close: () => outgoing.destroy() });
      },
    );
    outgoing.on('error', (error) => (ended ? undefined : reject(error)));
    outgoing.end();
  });
}

const stack = await TestStack.start({ RATE_LIMIT_PER_HOUR: '100000000', LOG_LEVEL: 'warn' });
try {
  const org = await createOrganization(stack.description, { plan: 'enterprise' });
  const project = await org.api.post('/api/v1/projects', { name: 'Idle waiters' });
  const created = await org.api.post(`/api/v1/projects/${project.body.id}/workflows`, {
    name: 'Waits an hour',
    diagram: chainOf(nodes.trigger('t'), nodes.delay('d', 3600)),
  });
  await org.api.post(`/api/v1/workflows/${created.body.id}/publish`, {});
  const runIds: string[] = [];
  for (let index = 0; index < streams; index += 1) {
    const started = await org.api.post(`/api/v1/workflows/${created.body.id}/runs`, {});
    runIds.push(started.body.id);
  }
  await waitFor(
    async () =>
      (await org.api.get(`/api/v1/runs/${runIds.at(-1)}`)).body.status === 'waiting' ? true : undefined,
    { what: 'the runs to wait' },
  );

  const gateway = stack.processes.get('gateway')?.child.pid;
  if (gateway === undefined) throw new Error('the stack has no gateway process');
  const quietStart = usageOf(gateway);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const idle = usageOf(gateway);
  const clients = await Promise.all(
    runIds.map((id) => hold(`${stack.baseUrl}/api/v1/runs/${id}/stream`, org.apiKey)),
  );
  const connected = usageOf(gateway);
  const before = usageOf(gateway);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = usageOf(gateway);
  const stillOpen = clients.filter((client) => client.open()).length;
  for (const client of clients) client.close();

  console.log(`#### ${streams} run streams held open for ${seconds} s, nothing changing\n`);
  console.log('| figure | value |');
  console.log('| --- | --- |');
  console.log(`| streams still open at the end | ${stillOpen} of ${clients.length} |`);
  console.log(`| gateway RSS before the clients | ${idle.rssMiB.toFixed(0)} MiB |`);
  console.log(`| gateway RSS with them open | ${connected.rssMiB.toFixed(0)} MiB |`);
  console.log(`| gateway CPU to open them all | ${(connected.cpu - idle.cpu).toFixed(2)} s |`);
  console.log(
    `| gateway CPU over the same time without them | ${(idle.cpu - quietStart.cpu).toFixed(2)} s in ${seconds} s |`,
  );
  console.log(
    `| gateway CPU while they wait | ${(after.cpu - before.cpu).toFixed(2)} s in ${seconds} s (${(((after.cpu - before.cpu) / seconds) * 100).toFixed(2)}% of a core) |`,
  );
} finally {
  await stack.stop();
}
