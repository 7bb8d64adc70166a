import { statfs } from 'node:fs/promises';

import { DomainException, isErrorCode, secondsSince } from '#common';
import { Counter, Gauge, Histogram } from 'prom-client';

/** SQL batches the DuckDB engine ran for this shard, as the service's main thread sees them. */
const batches = new Counter({
  name: 'flowmesh_duckdb_batches_total',
  help: 'SQL batches run on this shard, by outcome (ok, or the error code the batch failed with).',
  labelNames: ['outcome'] as const,
});
const batchSeconds = new Histogram({
  name: 'flowmesh_duckdb_batch_duration_seconds',
  help: 'Time a SQL batch took in the DuckDB engine, waits for a move and the worker included.',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
});
const resultBytes = new Histogram({
  name: 'flowmesh_duckdb_batch_result_bytes',
  help: "Size of a successful batch's results, as the JSON text sent back.",
  // 256 B to 64 MiB, by fours.
  buckets: [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
});
const okBatches = batches.labels('ok');

/** Counts and times a batch: `body` is the result's JSON text, when it succeeded. */
export function batchSucceeded(began: number, body: string): void {
  okBatches.inc();
  batchSeconds.observe(secondsSince(began));
  resultBytes.observe(Buffer.byteLength(body));
}

export function batchFailed(began: number, error: unknown): void {
  batchSeconds.observe(secondsSince(began));
  const code = error instanceof DomainException ? error.code : null;
  batches.labels(isErrorCode(code) ? code : 'internal').inc();
}

/**
 * The volume holding this shard's database files (`<DATA_DIR>/databases`), read from the file system
 * when scraped: one `statfs` call, no database query.
 */
let watchedDirectory: string | undefined;

const diskFree = new Gauge({
  name: 'flowmesh_database_disk_free_bytes',
  help: "Bytes free (for unprivileged users) on the volume of this shard's database files.",
  async collect() {
    const stats = await statsOfWatched();
    if (stats) this.set(stats.bavail * stats.bsize);
  },
});
const diskSize = new Gauge({
  name: 'flowmesh_database_disk_size_bytes',
  help: "Size of the volume of this shard's database files.",
  async collect() {
    const stats = await statsOfWatched();
    if (stats) this.set(stats.blocks * stats.bsize);
  },
});
void diskFree;
void diskSize;

async function statsOfWatched(): Promise<{ bavail: number; blocks: number; bsize: number } | undefined> {
  if (!watchedDirectory) return undefined;
  return statfs(watchedDirectory).catch(() => undefined);
}

/** Reports the volume of `directory` in the disk gauges from now on. */
export function watchDataDisk(directory: string): void {
  watchedDirectory = directory;
}
