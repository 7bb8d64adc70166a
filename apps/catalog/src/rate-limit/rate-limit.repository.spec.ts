import { dataSourceOptions, migrate } from '#persistence';
import pg from 'pg';
import { DataSource } from 'typeorm';

import { catalogDataSource } from '../catalog.database.js';
import { RateLimitRepository } from './rate-limit.repository.js';

/** The shared rate limit count, against a real Postgres database of its own. */
const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `fm_catalog_rate_limit_spec_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
const WINDOW = 3_600_000 * 500_000;

describe('RateLimitRepository', () => {
  let dataSource: DataSource;
  let windows: RateLimitRepository;

  beforeAll(async () => {
    await admin(`CREATE DATABASE "${name}"`);
    await migrate(catalogDataSource(url));
    dataSource = new DataSource(dataSourceOptions(catalogDataSource(url)));
    await dataSource.initialize();
    windows = new RateLimitRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  const stored = async (): Promise<Array<{ bucket: string; window_start: string; hits: number }>> =>
    dataSource.query('SELECT bucket, window_start, hits FROM catalog.rate_limit_windows ORDER BY bucket');

  beforeEach(async () => {
    await dataSource.query('DELETE FROM catalog.rate_limit_windows');
  });

  it('adds hits per bucket and window and answers the new totals', async () => {
    expect(await windows.add(WINDOW, [{ bucket: 'key:a', count: 1 }])).toEqual([
      { bucket: 'key:a', count: 1 },
    ]);
    expect(
      await windows.add(WINDOW, [
        { bucket: 'key:a', count: 4 },
        { bucket: 'key:b', count: 2 },
      ]),
    ).toEqual([
      { bucket: 'key:a', count: 5 },
      { bucket: 'key:b', count: 2 },
    ]);
    expect(await windows.add(WINDOW + 3_600_000, [{ bucket: 'key:a', count: 1 }])).toEqual([
      { bucket: 'key:a', count: 1 },
    ]);
  });

  it('answers the totals of buckets sent with no hits, without writing them', async () => {
    await windows.add(WINDOW, [{ bucket: 'key:a', count: 3 }]);
    expect(
      await windows.add(WINDOW, [
        { bucket: 'key:a', count: 0 },
        { bucket: 'key:new', count: 0 },
      ]),
    ).toEqual([
      { bucket: 'key:a', count: 3 },
      { bucket: 'key:new', count: 0 },
    ]);
    expect(await stored()).toEqual([{ bucket: 'key:a', window_start: String(WINDOW), hits: 3 }]);
  });

  it('never stores a negative count or lowers a total, whatever it is sent', async () => {
    await windows.add(WINDOW, [{ bucket: 'key:a', count: 3 }]);
    expect(
      await windows.add(WINDOW, [
        { bucket: 'key:a', count: -5 },
        { bucket: 'key:new', count: -1 },
        { bucket: 'key:b', count: 2 },
      ]),
    ).toEqual([
      { bucket: 'key:a', count: 3 },
      { bucket: 'key:new', count: 0 },
      { bucket: 'key:b', count: 2 },
    ]);
    expect(await stored()).toEqual([
      { bucket: 'key:a', window_start: String(WINDOW), hits: 3 },
      { bucket: 'key:b', window_start: String(WINDOW), hits: 2 },
    ]);
  });
});
