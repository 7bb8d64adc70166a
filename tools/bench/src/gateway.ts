// Gateway → NATS → catalog → Postgres against a bare Fastify route serving the same JSON.
// Run: npm run build && node dist/tools/bench/src/gateway.js [seconds per level] [--all-in-one]
//        [--get-only] [--profile DIR]
// With --all-in-one, catalog and the gateway run in one process (SERVICES=catalog,gateway), as
// `npm start` runs them; otherwise each has its own, as `deploy/` runs them. Each GET level also
// reports the CPU one request cost each process (from /proc: the services, this run's nats-server,
// the Postgres backends of this run's database, and the load generator itself). --profile DIR writes
// a CPU profile of each service process over the 50-connection GET run (`<process>.cpuprofile`).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  createDatabase,
  createOrganization,
  databaseUrl,
  dropDatabase,
  freePort,
  InspectedProcess,
  runMigrations,
  type ServiceProcess,
  startService,
  TestNatsServer,
  WORKSPACE_ROOT,
} from '#testing';
import pg from 'pg';

import { benchContext } from './context.js';
import { cpuSecondsOf, load, type LoadResult, table } from './measure.js';

const seconds = Number(process.argv.slice(2).find((argument) => /^\d+$/.test(argument)) ?? 10);
const allInOne = process.argv.includes('--all-in-one');
const getOnly = process.argv.includes('--get-only');
const profileIndex = process.argv.indexOf('--profile');
const profileDir = profileIndex >= 0 ? process.argv[profileIndex + 1] : undefined;
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
const env: Record<string, string> = {
  DATABASE_URL: databaseUrl(databaseName),
  NATS_URL: nats.url,
  ...nats.credentials,
  NATS_SUBJECT_PREFIX: subjectPrefix,
  RATE_LIMIT_PER_HOUR: '100000000',
  LOG_LEVEL: 'warn',
  TEST_LOG_LEVEL: 'warn',
  ...(profileDir ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
};
await createDatabase(databaseName);
const gatewayPort = await freePort();
const baseUrl = `http://127.0.0.1:${gatewayPort}`;
const gatewayEnv = {
  ...env,
  PORT: String(gatewayPort),
  HOST: '127.0.0.1',
  PUBLIC_URL: baseUrl,
  METRICS_PORT: '0',
};
let processes: ServiceProcess[];
if (allInOne) {
  processes = [
    await startService('all-in-one', {
      env: { ...gatewayEnv, SERVICES: 'catalog,gateway' },
      readyUrl: `${baseUrl}/health/ready`,
    }),
  ];
} else {
  await runMigrations(['catalog'], env);
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
const database = new pg.Client({ connectionString: databaseUrl(databaseName) });
await database.connect();

/** CPU seconds so far of each process on the GET path, by name. */
async function cpuByProcess(): Promise<Record<string, number>> {
  const backends = await database.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [databaseName],
  );
  const usage = process.cpuUsage();
  return {
    ...Object.fromEntries(processes.map((service) => [service.name, cpuSecondsOf(service.child.pid ?? 0)])),
    'nats-server': cpuSecondsOf(nats.pid ?? 0),
    Postgres: backends.rows.reduce((sum, backend) => sum + cpuSecondsOf(backend.pid), 0),
    autocannon: (usage.user + usage.system) / 1e6,
  };
}

interface GetLevel {
  result: LoadResult;
  /** µs of CPU per answered request, by process. */
  cpuMicros: Record<string, number>;
}

async function measureGet(
  url: string,
  headers: Record<string, string>,
  connections: number,
): Promise<GetLevel> {
  const inspected =
    profileDir && connections === 50
      ? await Promise.all(processes.map((service) => InspectedProcess.fromOutput(service.output())))
      : [];
  const before = await cpuByProcess();
  const profiling = inspected.map((target) =>
    target.profile(() => new Promise((resolve) => setTimeout(resolve, seconds * 1000 - 200))),
  );
  const result = await load({ url, headers, connections, duration: seconds });
  const after = await cpuByProcess();
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    (await Promise.all(profiling)).forEach(({ profile }, index) =>
      writeFileSync(join(profileDir, `${processes[index]?.name}.cpuprofile`), JSON.stringify(profile)),
    );
    inspected.forEach((target) => target.close());
  }
  const cpuMicros = Object.fromEntries(
    Object.keys(after).map((name) => [
      name,
      Math.round((((after[name] ?? 0) - (before[name] ?? 0)) * 1e6) / Math.max(1, result.succeeded)),
    ]),
  );
  return { result, cpuMicros };
}

function cpuTable(levelsMeasured: GetLevel[]): string {
  const names = Object.keys(levelsMeasured[0]?.cpuMicros ?? {});
  return [
    '#### CPU per GET, µs by process',
    '',
    `| connections | ${names.join(' | ')} | all |`,
    `| --- | ${names.map(() => '---').join(' | ')} | --- |`,
    ...levelsMeasured.map(
      ({ result, cpuMicros }) =>
        `| ${result.connections} | ${names.map((name) => cpuMicros[name]).join(' | ')} | ${Object.values(
          cpuMicros,
        ).reduce((sum, micros) => sum + micros, 0)} |`,
    ),
  ].join('\n');
}

try {
  const stack = { baseUrl, env, databaseName };
  const reader = await createOrganization(stack);
  const project = await reader.api.post('/api/v1/projects', { name: 'Bench project', description: null });
  const auth = { authorization: `Bearer ${reader.apiKey}` };
  const body = JSON.stringify({ name: 'Bench project', description: null });
  const json = { 'content-type': 'application/json' };
  const getUrl = `${baseUrl}/api/v1/projects/${project.body.id}`;

  const getFull: GetLevel[] = [];
  const results: { getBare: LoadResult[]; postFull: LoadResult[]; postBare: LoadResult[] } = {
    getBare: [],
    postFull: [],
    postBare: [],
  };
  for (const connections of levels) {
    // Warm both paths so JIT and pools are settled before measuring.
    await load({ url: getUrl, headers: auth, connections, duration: 2 });
    getFull.push(await measureGet(getUrl, auth, connections));
    await load({ url: `${bare.url}/api/v1/projects/x`, connections, duration: 2 });
    results.getBare.push(
      await load({ url: `${bare.url}/api/v1/projects/x`, connections, duration: seconds }),
    );
    if (getOnly) continue;
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
      `${context.line}; Node ${process.version}; ${allInOne ? 'catalog and gateway in one process' : 'catalog and gateway in a process each'}`,
      table(
        'GET /api/v1/projects/{id}: gateway → NATS → catalog → Postgres',
        getFull.map((level) => level.result),
        results.getBare,
      ),
      table('GET, bare Fastify ceiling', results.getBare),
      cpuTable(getFull),
      ...(getOnly
        ? []
        : [
            table(
              'POST /api/v1/projects: gateway → NATS → catalog → Postgres (insert)',
              results.postFull,
              results.postBare,
            ),
            table('POST, bare Fastify ceiling', results.postBare),
          ]),
    ].join('\n\n'),
  );
} finally {
  await database.end();
  bare.stop();
  for (const service of processes.reverse()) await service.stop();
  await nats.stop();
  await dropDatabase(databaseName);
}
