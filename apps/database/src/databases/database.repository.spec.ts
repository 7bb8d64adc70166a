import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { databaseDataSource } from '../database.data-source.js';
import type { DB } from '../database.tables.js';
import { ShardRepository } from '../shards/shard.repository.js';
import { DatabaseNameTakenError, DatabaseRepository } from './database.repository.js';

/** Who the changes under test are recorded as made by. */
const CALLER = { organizationId: 'org-a', userId: 'user-a', keyId: null };

/** The metadata rows and the registry the shards agree through, against a real Postgres database of its own. */
const database = scratchDatabase('fm_database_spec');

describe('DatabaseRepository and ShardRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let databases: DatabaseRepository;
  let shards: ShardRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(databaseDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions({ ...databaseDataSource(database.url), poolSize: 2 }));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    databases = new DatabaseRepository(db);
    shards = new ShardRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it("keeps an organization's names unique, on insert and on rename", async () => {
    const organizationId = `org-${newId()}`;
    const first = await databases.transactionLockedFor(organizationId, (trx) =>
      databases.insert({ organizationId, name: 'sales', description: '', shard: 0 }, trx),
    );
    const second = await databases.insert({ organizationId, name: 'stock', description: 'kept', shard: 0 });
    await expect(
      databases.insert({ organizationId, name: 'sales', description: '', shard: 1 }),
    ).rejects.toBeInstanceOf(DatabaseNameTakenError);
    await expect(databases.update(second, { name: 'sales' }, CALLER)).rejects.toBeInstanceOf(
      DatabaseNameTakenError,
    );
    await expect(
      databases.insert({ organizationId: `${organizationId}-b`, name: 'sales', description: '', shard: 0 }),
    ).resolves.toMatchObject({ name: 'sales', moveId: null });

    const renamed = await databases.update(second, { name: 'inventory' }, CALLER);
    expect(renamed).toMatchObject({ id: second.id, name: 'inventory', description: 'kept' });
    expect(renamed?.updatedAt.getTime()).toBeGreaterThan(second.updatedAt.getTime());
    await expect(databases.count(organizationId)).resolves.toBe(2);
    const page = await databases.list(organizationId, { limit: 1 });
    expect(page.data.map((row) => row.id)).toEqual([second.id]);
    await expect(databases.list(organizationId, { cursor: page.nextCursor ?? '' })).resolves.toEqual({
      data: [first],
      nextCursor: null,
    });

    expect(await databases.delete(organizationId, first.id, 1, CALLER)).toBe(false);
    expect(await databases.delete(organizationId, first.id, 0, CALLER)).toBe(true);
    await expect(databases.update(first, { name: 'gone' }, CALLER)).resolves.toBeNull();
    await expect(databases.existing(organizationId, [first.id, second.id, 'not-an-id'])).resolves.toEqual([
      second.id,
    ]);
  });

  it('moves a database only through the compare-and-set steps of one move', async () => {
    const organizationId = `org-${newId()}`;
    const { id } = await databases.insert({ organizationId, name: 'moving', description: '', shard: 0 });
    const move = newId();
    expect(await databases.beginMove(id, 1, move)).toBe(false);
    expect(await databases.beginMove(id, 0, move)).toBe(true);
    expect(await databases.beginMove(id, 0, newId())).toBe(false);
    await expect(databases.placement(id)).resolves.toEqual({ id, organizationId, shard: 0, moveId: move });
    expect(await databases.commitMove(id, 0, 1, newId())).toBe(false);
    expect(await databases.commitMove(id, 0, 1, move)).toBe(true);
    expect(await databases.abortMove(id, 0, move)).toBe(false);
    await expect(databases.onShard(1)).resolves.toContainEqual({
      id,
      organizationId,
      shard: 1,
      moveId: null,
    });
    await expect(databases.placements(['not-an-id'])).resolves.toEqual([]);
  });

  it("adds up an organization's storage as its shards last measured it", async () => {
    const organizationId = `org-${newId()}`;
    await expect(databases.storage(organizationId)).resolves.toEqual({ total: 0, largest: 0 });
    const small = await databases.insert({ organizationId, name: 'small', description: '', shard: 0 });
    const large = await databases.insert({ organizationId, name: 'large', description: '', shard: 1 });
    await databases.recordStorage(small.id, 1_000.4);
    await databases.recordStorage(large.id, 5_000_000_000);
    await expect(databases.storage(organizationId)).resolves.toEqual({
      total: 5_000_001_000,
      largest: 5_000_000_000,
    });
    await expect(databases.storageOfOthers(organizationId, large.id)).resolves.toBe(1_000);
  });

  it('lists registered shards with their loads, and shards holding databases without registering', async () => {
    await shards.register(7);
    await shards.register(8);
    expect(await shards.setState(8, 'leaving')).toBe(true);
    expect(await shards.setState(99, 'leaving')).toBe(false);
    await databases.insert({ organizationId: `org-${newId()}`, name: 'orphan', description: '', shard: 42 });
    const loads = await shards.loads(60_000);
    expect(loads.filter((load) => [7, 8, 42].includes(load.shard))).toEqual([
      { shard: 7, state: 'active', live: true, heartbeatAt: expect.any(Date), databases: 0 },
      { shard: 8, state: 'leaving', live: true, heartbeatAt: expect.any(Date), databases: 0 },
      { shard: 42, state: 'leaving', live: false, heartbeatAt: new Date(0), databases: 1 },
    ]);
    await shards.heartbeat(8);
    await shards.activateLive(60_000);
    await expect(shards.loads(60_000)).resolves.toContainEqual(
      expect.objectContaining({ shard: 8, state: 'active' }),
    );
    // A restart keeps the state the shard had.
    await shards.setState(7, 'leaving');
    await shards.register(7);
    await expect(shards.loads(60_000)).resolves.toContainEqual(
      expect.objectContaining({ shard: 7, state: 'leaving' }),
    );
  });
});
