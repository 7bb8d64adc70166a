/**
 * Cancel latency (issue 25, item 1): a run whose HTTP action waits on an endpoint that would answer
 * after 30 s is cancelled; measured from just before the cancel request is sent to (1) the run read
 * back `terminated` and (2) the endpoint seeing its connection closed by the app that called it.
 * Reports p50 and max over `--tries` (default 20).
 *
 *   npm run build && node dist/tools/bench/cancel-bench.js [--tries 20]
 *
 * It starts a stack of its own (fresh database, own NATS server), one process per service, and an
 * endpoint on this machine (so the stack allows private addresses for actions).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { chainOf, createConnection, createOrganization, nodes, TestStack, waitFor } from '#testing';

import { argument, benchContext } from './src/context.js';

const tries = Number(argument('tries', '20'));
const ANSWER_AFTER_MS = 30_000;

/** An endpoint that answers after 30 s, and tells when each request's connection closes early. */
function slowEndpoint() {
  const arrived = new Map<string, number>();
  const closed = new Map<string, number>();
  const server = createServer((request: IncomingMessage, response) => {
    const path = request.url ?? '/';
    arrived.set(path, performance.now());
    const timer = setTimeout(() => response.end('{"late":true}'), ANSWER_AFTER_MS);
    request.socket.once('close', () => {
      clearTimeout(timer);
      closed.set(path, performance.now());
    });
    request.resume();
  });
  return { server, arrived, closed };
}

/** The answer's data when it has the expected status (the test helpers' `expectData` needs Jest). */
function must<T>(answer: { data?: T; response: Response }, status: number): T {
  if (answer.response.status !== status || answer.data === undefined) {
    throw new Error(`expected ${status}, got ${answer.response.status}`);
  }
  return answer.data;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? Number.NaN;
};
const round = (ms: number) => Math.round(ms * 10) / 10;

const context = benchContext();
const endpoint = slowEndpoint();
await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(endpoint.server.address() as AddressInfo).port}`;
const stack = await TestStack.start({
  LOG_LEVEL: 'warn',
  ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
  RATE_LIMIT_PER_HOUR: '1000000',
});
try {
  const { api, organizationId } = await createOrganization(stack.description);
  const projectId = must(await api.POST('/api/v1/projects', { body: { name: 'Cancel bench' } }), 201).id;
  const { connectionId } = await createConnection(stack.description, organizationId, 'http');
  const terminatedMs: number[] = [];
  const closedMs: number[] = [];
  for (let attempt = 0; attempt < tries; attempt += 1) {
    const path = `/slow-${attempt}`;
    const diagram = chainOf(
      nodes.trigger('t'),
      nodes.action('slow', 'http__request', { method: 'GET', url: `${url}${path}` }, { connectionId }),
    );
    const workflow = must(
      await api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name: `cancel ${attempt}`, diagram },
      }),
      201,
    );
    const run = must(
      await api.POST('/api/v1/workflows/{id}/runs', {
        params: { path: { id: workflow.id } },
        body: { draft: true },
      }),
      201,
    );
    await waitFor(() => (endpoint.arrived.has(path) ? true : undefined), { what: `the call to ${path}` });
    const began = performance.now();
    const cancelled = must(
      await api.POST('/api/v1/runs/{id}/cancel', {
        params: { path: { id: run.id } },
        body: { reason: 'bench' },
      }),
      200,
    );
    if (cancelled.status !== 'terminated') throw new Error(`the run is ${cancelled.status}, not terminated`);
    terminatedMs.push(performance.now() - began);
    await waitFor(() => (endpoint.closed.has(path) ? true : undefined), {
      timeoutMs: ANSWER_AFTER_MS,
      intervalMs: 5,
      what: `the connection of ${path} to close`,
    });
    closedMs.push((endpoint.closed.get(path) ?? Number.NaN) - began);
  }
  console.log(context.line);
  console.log(`| ${tries} tries | p50 | max |`);
  console.log('| --- | --- | --- |');
  console.log(
    `| cancel answered, run terminated (ms) | ${round(percentile(terminatedMs, 0.5))} | ${round(Math.max(...terminatedMs))} |`,
  );
  console.log(
    `| endpoint's connection closed (ms) | ${round(percentile(closedMs, 0.5))} | ${round(Math.max(...closedMs))} |`,
  );
} finally {
  await stack.stop();
  endpoint.server.close();
}
