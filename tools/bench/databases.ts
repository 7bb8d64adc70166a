/**
 * Databases benchmark: a batch of 100 parameterized INSERTs, and a SELECT of 10,000 rows, through the
 * gateway (HTTP → gateway → NATS → database service → DuckDB and back) at 1 and 10 connections, beside
 * the same work done by DuckDB directly in one process (the ceiling).
 *
 *   npm run build && node dist/tools/bench/databases.js [--seconds 10] [--connections 1,10]
 *
 * It starts its own catalog, database service and gateway (fresh Postgres database, own NATS prefix,
 * own data directory). autocannon runs in this process; its CPU share is reported, because the load
 * generator competes with the stack for the same cores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  ApiClient,
  createDatabase,
  createOrganization,
  databaseUrl,
  dropDatabase,
  freePort,
  runMigrations,
  type ServiceProcess,
  startService,
} from '#testing';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import autocannon from 'autocannon';

import { argument } from './src/context.js';
import { machineTicks } from './src/measure.js';

const seconds = Number(argument('seconds', '10'));
const levels = argument('connections', '1,10').split(',').map(Number);
const ROWS = 10_000;
const INSERTS = 100;

const INSERT_SQL = 'INSERT INTO events (id, kind, amount, note) VALUES (?, ?, ?, ?)';
const insertBatch = Array.from({ length: INSERTS }, (_, index) => ({
  sql: INSERT_SQL,
  params: [index, index % 2 === 0 ? 'order' : 'refund', index * 1.25, `note ${index}`],
}));
const SELECT_SQL = 'SELECT id, name, score, active FROM items ORDER BY id';
const SETUP = [
  'CREATE TABLE events (id INTEGER, kind VARCHAR, amount DOUBLE, note VARCHAR)',
  `CREATE TABLE items AS SELECT range::INTEGER AS id, 'item ' || range AS name, range * 0.5 AS score,
     range % 2 = 0 AS active FROM range(${ROWS})`,
];

interface Measurement {
  connections: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
  /** This process's CPU (the load generator, or the in-process ceiling), as a share of the machine. */
  processCpu: number;
  machineCpu: number;
}

const cores = cpus().length;

async function measured(work: () => Promise<Omit<Measurement, 'processCpu' | 'machineCpu'>>) {
  const cpu = process.cpuUsage();
  const ticks = machineTicks();
  const started = process.hrtime.bigint();
  const result = await work();
  const wallMicros = Number(process.hrtime.bigint() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const after = machineTicks();
  return {
    ...result,
    processCpu: (used.user + used.system) / wallMicros / cores,
    machineCpu: (after.busy - ticks.busy) / Math.max(1, after.total - ticks.total),
  };
}

async function viaGateway(
  url: string,
  apiKey: string,
  body: string,
  connections: number,
  duration: number,
): Promise<Measurement> {
  return measured(async () => {
    const result = await autocannon({
      url,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
      connections,
      pipelining: 1,
      duration,
    });
    return {
      connections,
      perSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      failures: result.non2xx + result.errors,
    };
  });
}

function percentile(sorted: number[], share: number): number {
  return sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0);
}

/** The ceiling: `connections` workers in this process, each on its own DuckDB connection. */
async function inProcess(
  instance: DuckDBInstance,
  connections: number,
  duration: number,
  work: (connection: DuckDBConnection) => Promise<void>,
): Promise<Measurement> {
  return measured(async () => {
    const latencies: number[] = [];
    let failures = 0;
    const deadline = Date.now() + duration * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        const connection = await instance.connect();
        try {
          while (Date.now() < deadline) {
            const begun = performance.now();
            try {
              await work(connection);
              latencies.push(performance.now() - begun);
            } catch {
              failures += 1;
            }
          }
        } finally {
          connection.closeSync();
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    return {
      connections,
      perSecond: latencies.length / ((Date.now() - started) / 1000),
      p50: Math.round(percentile(latencies, 0.5)),
      p99: Math.round(percentile(latencies, 0.99)),
      failures,
    };
  });
}

/** What the API does for the insert batch: one transaction, the statement prepared once, bound 100 times. */
async function insertDirect(connection: DuckDBConnection): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const prepared = await connection.prepare(INSERT_SQL);
    for (const statement of insertBatch) {
      prepared.bind(statement.params);
      await prepared.run();
    }
    prepared.destroySync();
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
}

/** What the API does for the select: run it and produce the rows' JSON. */
async function selectDirect(connection: DuckDBConnection): Promise<void> {
  const result = await connection.run(SELECT_SQL);
  const rows = await result.getRowsJson();
  if (JSON.stringify(rows).length === 0 || rows.length !== ROWS) throw new Error('short result');
}

function table(title: string, api: Measurement[], ceiling: Measurement[]): string {
  const lines = [
    `#### ${title}`,
    '',
    '| connections | path | per second | p50 ms | p99 ms | failures | share of ceiling | this process CPU | machine CPU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of api) {
    const top = ceiling.find((candidate) => candidate.connections === row.connections);
    for (const [path, measurement] of [
      ['API (gateway)', row],
      ['DuckDB in process', top],
    ] as const) {
      if (!measurement) continue;
      const share =
        path === 'API (gateway)' && top ? `${Math.round((row.perSecond / top.perSecond) * 100)}%` : '';
      lines.push(
        `| ${measurement.connections} | ${path} | ${measurement.perSecond.toFixed(1)} | ${measurement.p50} | ${measurement.p99} | ${measurement.failures} | ${share} | ${Math.round(measurement.processCpu * 100)}% | ${Math.round(measurement.machineCpu * 100)}% |`,
      );
    }
  }
  return lines.join('\n');
}

const id = Date.now().toString(36);
const databaseName = `fm_bench_db_${id}`;
const dataDir = mkdtempSync(join(tmpdir(), 'flowmesh-bench-db-'));
const env: Record<string, string> = {
  DATABASE_URL: databaseUrl(databaseName),
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  NATS_SUBJECT_PREFIX: `bench_db_${id}.`,
  DATA_DIR: dataDir,
  AUTH_SECRET: `bench-secret-${id}-0123456789abcdefghijklmnop`,
  RATE_LIMIT_PER_HOUR: '1000000000',
  LOG_LEVEL: 'warn',
};
const processes: ServiceProcess[] = [];
await createDatabase(databaseName);
try {
  await runMigrations(['catalog', 'database'], env);
  for (const app of ['catalog', 'database']) {
    const port = await freePort();
    processes.push(
      await startService(app, {
        env: { ...env, HEALTH_PORT: String(port) },
        readyUrl: `http://127.0.0.1:${port}/health`,
      }),
    );
  }
  const gatewayPort = await freePort();
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  processes.push(
    await startService('gateway', {
      env: { ...env, PORT: String(gatewayPort), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, METRICS_PORT: '0' },
      readyUrl: `${baseUrl}/api/health`,
    }),
  );
  const org = await createOrganization({ baseUrl, env, databaseName });
  const api = new ApiClient(baseUrl, org.apiKey);
  const created = await api.post<{ id: string }>('/api/v1/databases', { name: 'bench' });
  const queryUrl = `${baseUrl}/api/v1/databases/${created.body.id}/query`;
  const setup = await api.post(`/api/v1/databases/${created.body.id}/query`, {
    statements: SETUP.map((sql) => ({ sql })),
  });
  if (setup.status !== 200) throw new Error(`setup failed: ${JSON.stringify(setup.body)}`);

  const insertBody = JSON.stringify({ statements: insertBatch });
  const selectBody = JSON.stringify({ statements: [{ sql: SELECT_SQL }] });
  const sample = await api.post<{ results: Array<{ rows: unknown[] }> }>(
    `/api/v1/databases/${created.body.id}/query`,
    JSON.parse(selectBody),
  );
  const responseBytes = JSON.stringify(sample.body).length;
  if (sample.body.results[0]?.rows.length !== ROWS) throw new Error('the select did not answer every row');

  const apiInserts: Measurement[] = [];
  const apiSelects: Measurement[] = [];
  for (const connections of levels) {
    await viaGateway(queryUrl, org.apiKey, selectBody, connections, 2);
    apiSelects.push(await viaGateway(queryUrl, org.apiKey, selectBody, connections, seconds));
    await viaGateway(queryUrl, org.apiKey, insertBody, connections, 2);
    apiInserts.push(await viaGateway(queryUrl, org.apiKey, insertBody, connections, seconds));
  }

  // The ceiling runs with the stack idle, on a file of its own opened as the service opens one.
  const instance = await DuckDBInstance.create(join(dataDir, 'ceiling.duckdb'), {
    threads: '2',
    memory_limit: '512MB',
    enable_external_access: 'false',
  });
  const setupConnection = await instance.connect();
  for (const sql of SETUP) await setupConnection.run(sql);
  setupConnection.closeSync();
  const directInserts: Measurement[] = [];
  const directSelects: Measurement[] = [];
  for (const connections of levels) {
    await inProcess(instance, connections, 2, selectDirect);
    directSelects.push(await inProcess(instance, connections, seconds, selectDirect));
    await inProcess(instance, connections, 2, insertDirect);
    directInserts.push(await inProcess(instance, connections, seconds, insertDirect));
  }
  instance.closeSync();

  console.log(
    [
      `${cores} cores, ${seconds} s per measurement; the SELECT answers ${ROWS} rows (${responseBytes} bytes of JSON).`,
      '',
      table(`SELECT of ${ROWS} rows (queries per second)`, apiSelects, directSelects),
      '',
      table(
        `Batch of ${INSERTS} parameterized INSERTs, one transaction (batches per second)`,
        apiInserts,
        directInserts,
      ),
    ].join('\n'),
  );
} finally {
  for (const service of processes.reverse()) await service.stop();
  await dropDatabase(databaseName).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}
