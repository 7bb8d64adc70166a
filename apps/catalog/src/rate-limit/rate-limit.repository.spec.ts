import { dataSourceOptions, kyselyOn, migrate } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { catalogDataSource } from '../catalog.database.js';
import type { DB } from '../catalog.tables.js';
import { RateLimitRepository } from './rate-limit.repository.js';

/** The shared rate limit count, against a real Postgres database of its own. */
const database = scratchDatabase('fm_catalog_rate_limit_spec');

const WINDOW = 3_600_000 * 500_000;

describe('RateLimitRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let windows: RateLimitRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(catalogDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(catalogDataSource(database.url)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    windows = new RateLimitRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  const stored = () =>
    db
      .selectFrom('catalog.rate_limit_windows')
      .select(['bucket', 'window_start', 'hits'])
      .orderBy('bucket')
      .execute();

  beforeEach(async () => {
    await db.deleteFrom('catalog.rate_limit_windows').execute();
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
