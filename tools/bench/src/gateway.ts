// Gateway → NATS → catalog → Postgres against a bare Fastify route serving the same JSON.
// Run: npm run build && node dist/tools/bench/src/gateway.js [seconds per level] [--all-in-one]
// With --all-in-one, catalog and the gateway run in one process (SERVICES=catalog,gateway), as
// `npm start` runs them; otherwise each has its own, as `deploy/` runs them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import {
  createDatabase,
  createOrganization,
  databaseUrl,
  dropDatabase,
  freePort,
  runMigrations,
  type ServiceProcess,
  startService,
  TestNatsServer,
  WORKSPACE_ROOT,
} from '#testing';

import { benchContext } from './context.js';
import { load, type LoadResult, table } from './measure.js';

const seconds = Number(process.argv.slice(2).find((argument) => /^\d+$/.test(argument)) ?? 10);
const allInOne = process.argv.includes('--all-in-one');
const levels = [1, 10, 50];

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'dist/tools/bench/src/bare-fastify.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) =>
      resolve((JSON.parse(chunk.toString()) as { port: number }).port),
    ),
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

const context = benchContext();
const id = Date.now().toString(36);
const databaseName = `fm_bench_${id}`;
const subjectPrefix = `bench_${id}.`;
// Authenticated, with the catalog's permissions, as in production.
const nats = await TestNatsServer.start(subjectPrefix);
const env = {
  DATABASE_URL: databaseUrl(databaseName),
  NATS_URL: nats.url,
  ...nats.credentials,
  NATS_SUBJECT_PREFIX: subjectPrefix,
  RATE_LIMIT_PER_HOUR: '100000000',
  LOG_LEVEL: 'warn',
  TEST_LOG_LEVEL: 'warn',
};
await createDatabase(databaseName);
const gatewayPort = await freePort();
const baseUrl = `http://127.0.0.1:${gatewayPort}`;
const gatewayEnv = { ...env, PORT: String(gatewayPort), HOST: '127.0.0.1', PUBLIC_URL: baseUrl };
let processes: ServiceProcess[];
if (allInOne) {
  processes = [
    await startService('all-in-one', {
      env: { ...gatewayEnv, SERVICES: 'catalog,gateway' },
      readyUrl: `${baseUrl}/health/ready`,
    }),
  ];
} else {
  await runMigrations('catalog', env);
  const catalogPort = await freePort();
  processes = [
    await startService('catalog', {
      env: { ...env, HEALTH_PORT: String(catalogPort) },
      readyUrl: `http://127.0.0.1:${catalogPort}/health`,
    }),
    await startService('gateway', { env: gatewayEnv, readyUrl: `${baseUrl}/api/health` }),
  ];
}
const bare = await startBare();

try {
  const stack = { baseUrl, env, databaseName };
  const reader = await createOrganization(stack);
  const project = await reader.api.post('/api/v1/projects', { name: 'Bench project', description: null });
  const auth = { authorization: `Bearer ${reader.apiKey}` };
  const body = JSON.stringify({ name: 'Bench project', description: null });
  const json = { 'content-type': 'application/json' };

  const results: {
    getFull: LoadResult[];
    getBare: LoadResult[];
    postFull: LoadResult[];
    postBare: LoadResult[];
  } = {
    getFull: [],
    getBare: [],
    postFull: [],
    postBare: [],
  };
  for (const connections of levels) {
    // Warm both paths so JIT and pools are settled before measuring.
    await load({
      url: `${baseUrl}/api/v1/projects/${project.body.id}`,
      headers: auth,
      connections,
      duration: 2,
    });
    results.getFull.push(
      await load({
        url: `${baseUrl}/api/v1/projects/${project.body.id}`,
        headers: auth,
        connections,
        duration: seconds,
      }),
    );
    await load({ url: `${bare.url}/api/v1/projects/x`, connections, duration: 2 });
    results.getBare.push(
      await load({ url: `${bare.url}/api/v1/projects/x`, connections, duration: seconds }),
    );
    // Each level writes into its own organization so the plan's project limit is never reached.
    const writer = await createOrganization(stack);
    results.postFull.push(
      await load({
        url: `${baseUrl}/api/v1/projects`,
        method: 'POST',
        headers: { authorization: `Bearer ${writer.apiKey}`, ...json },
        body,
        connections,
        duration: seconds,
      }),
    );
    results.postBare.push(
      await load({
        url: `${bare.url}/api/v1/projects`,
        method: 'POST',
        headers: json,
        body,
        connections,
        duration: seconds,
      }),
    );
  }
  console.log(
    [
      `${context.line}; ${allInOne ? 'catalog and gateway in one process' : 'catalog and gateway in a process each'}`,
      table(
        'GET /api/v1/projects/{id}: gateway → NATS → catalog → Postgres',
        results.getFull,
        results.getBare,
      ),
      table('GET, bare Fastify ceiling', results.getBare),
      table(
        'POST /api/v1/projects: gateway → NATS → catalog → Postgres (insert)',
        results.postFull,
        results.postBare,
      ),
      table('POST, bare Fastify ceiling', results.postBare),
    ].join('\n\n'),
  );
} finally {
  bare.stop();
  for (const service of processes.reverse()) await service.stop();
  await nats.stop();
  await dropDatabase(databaseName);
}
