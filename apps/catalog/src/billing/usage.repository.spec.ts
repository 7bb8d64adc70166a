import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import { type Kysely, sql } from 'kysely';
import { DataSource } from 'typeorm';

import { catalogDataSource } from '../catalog.database.js';
import type { DB } from '../catalog.tables.js';
import { lastSevenDays } from './usage-period.util.js';
import { type RunLimits, UsageRepository } from './usage.repository.js';

/** Run counting and the dashboard's seven days, with an injected clock, on a Postgres database of its own. */
const database = scratchDatabase('fm_catalog_usage_spec');

describe('UsageRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let usage: UsageRepository;
  let organization = 0;
  const nextOrganization = () => `org-${(organization += 1)}`;

  beforeAll(async () => {
    await database.create();
    await migrate(catalogDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(catalogDataSource(database.url)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    usage = new UsageRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  /** Every organization of these tests without a plan row is on the fallback plan. */
  const limitOf = (fallback: number): RunLimits => ({ byPlan: { small: 1, large: 5 }, fallback });
  const consume = async (organizationId: string, runId: string, fallback: number, now: Date) =>
    (await usage.consumeRun(organizationId, runId, limitOf(fallback), now)).result;
  const count = (organizationId: string, at: string) => consume(organizationId, newId(), 1_000, new Date(at));

  it('lists seven UTC days ending today, oldest first, whatever the hour', () => {
    expect(lastSevenDays(new Date('2026-03-01T00:00:00.000Z'))).toEqual([
      '2026-02-23',
      '2026-02-24',
      '2026-02-25',
      '2026-02-26',
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
    ]);
    expect(lastSevenDays(new Date('2026-03-01T23:59:59.999Z'))).toEqual(
      lastSevenDays(new Date('2026-03-01T00:00:00.000Z')),
    );
  });

  it('counts each run on its UTC day and shows the seven days up to the clock, zeros included', async () => {
    const org = nextOrganization();
    // Either side of midnight UTC, of the window's first day, and just before the window.
    await count(org, '2026-11-22T23:59:59.999Z');
    await count(org, '2026-11-23T00:00:00.000Z');
    await count(org, '2026-11-23T00:00:00.001Z');
    await count(org, '2026-11-17T00:00:00.000Z');
    await count(org, '2026-11-16T23:59:59.999Z');
    await count(nextOrganization(), '2026-11-23T12:00:00.000Z');

    const at = (iso: string) => usage.activity(org, new Date(iso));
    expect(await at('2026-11-23T00:00:00.000Z')).toEqual([
      { date: '2026-11-17', runs: 1 },
      { date: '2026-11-18', runs: 0 },
      { date: '2026-11-19', runs: 0 },
      { date: '2026-11-20', runs: 0 },
      { date: '2026-11-21', runs: 0 },
      { date: '2026-11-22', runs: 1 },
      { date: '2026-11-23', runs: 2 },
    ]);
    // One millisecond before midnight the window is a day earlier: the 16th is in, the 23rd is out.
    expect(await at('2026-11-22T23:59:59.999Z')).toEqual([
      { date: '2026-11-16', runs: 1 },
      { date: '2026-11-17', runs: 1 },
      { date: '2026-11-18', runs: 0 },
      { date: '2026-11-19', runs: 0 },
      { date: '2026-11-20', runs: 0 },
      { date: '2026-11-21', runs: 0 },
      { date: '2026-11-22', runs: 1 },
    ]);
  });

  it('counts a retried run once, and a refused run not at all', async () => {
    const org = nextOrganization();
    const runId = newId();
    const now = new Date('2026-11-23T10:00:00.000Z');
    expect(await consume(org, runId, 2, now)).toBe('counted');
    expect(await consume(org, runId, 2, now)).toBe('already_counted');
    expect(await consume(org, newId(), 2, now)).toBe('counted');
    expect(await consume(org, newId(), 2, now)).toBe('limit_reached');
    expect((await usage.activity(org, now)).at(-1)).toEqual({ date: '2026-11-23', runs: 2 });
  });

  it('lets exactly one of two runs racing for the last place of the month be counted', async () => {
    for (let round = 0; round < 10; round += 1) {
      const org = nextOrganization();
      const now = new Date('2026-11-23T10:00:00.000Z');
      expect(await consume(org, newId(), 2, now)).toBe('counted');
      const outcomes = await Promise.all([consume(org, newId(), 2, now), consume(org, newId(), 2, now)]);
      expect(outcomes.sort()).toEqual(['counted', 'limit_reached']);
      expect((await usage.activity(org, now)).at(-1)?.runs).toBe(2);
    }
  });

  it("applies the organization's plan, read in the counting statement, and answers it with its limit", async () => {
    const org = nextOrganization();
    const now = new Date('2026-11-23T10:00:00.000Z');
    await db
      .insertInto('catalog.organization_plans')
      .values({ organization_id: org, plan: 'small', complimentary: false })
      .execute();
    expect(await usage.consumeRun(org, newId(), limitOf(100), now)).toEqual({
      result: 'counted',
      limit: 1,
      plan: 'small',
    });
    expect(await usage.consumeRun(org, newId(), limitOf(100), now)).toEqual({
      result: 'limit_reached',
      limit: 1,
      plan: 'small',
    });
    await db
      .updateTable('catalog.organization_plans')
      .set({ plan: 'gone' })
      .where('organization_id', '=', org)
      .execute();
    // A plan id nobody knows counts as the fallback plan.
    expect(await usage.consumeRun(org, newId(), limitOf(100), now)).toEqual({
      result: 'counted',
      limit: 100,
      plan: 'gone',
    });
    // An organization without a plan row has none.
    expect(await usage.consumeRun(nextOrganization(), newId(), limitOf(100), now)).toEqual({
      result: 'counted',
      limit: 100,
      plan: null,
    });
  });

  it('counts many runs at once in their order up to the limit, and a run counted already once', async () => {
    const org = nextOrganization();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const earlier = newId();
    expect(await consume(org, earlier, 5, now)).toBe('counted');
    const batch = [newId(), earlier, newId(), newId(), newId(), newId()];
    // One place taken, four left: the earlier run takes none of them, the last new run gets none.
    expect(await usage.consumeRuns(org, batch, limitOf(5), now)).toEqual({
      refused: batch.slice(5),
      limit: 5,
      plan: null,
    });
    expect((await usage.activity(org, now)).at(-1)).toEqual({ date: '2026-11-23', runs: 5 });
    // The refused runs were not counted: a single start of one of them is refused too, not replayed.
    expect(await consume(org, batch[5], 5, now)).toBe('limit_reached');
    // Sent again, the counted ones are neither counted twice nor refused.
    expect(await usage.consumeRuns(org, batch.slice(0, 5), limitOf(5), now)).toEqual({
      refused: [],
      limit: 5,
      plan: null,
    });
    expect((await usage.activity(org, now)).at(-1)?.runs).toBe(5);
  });

  it('refunds a counted run once, on the month and the day it was counted', async () => {
    const org = nextOrganization();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const runId = newId();
    expect(await consume(org, runId, 2, now)).toBe('counted');
    expect(await consume(org, newId(), 2, now)).toBe('counted');
    expect(await consume(org, newId(), 2, now)).toBe('limit_reached');

    expect(await usage.refundRun(org, runId)).toBe(true);
    expect(await usage.refundRun(org, runId)).toBe(false);
    expect(await usage.refundRun(nextOrganization(), newId())).toBe(false);
    expect((await usage.activity(org, now)).at(-1)).toEqual({ date: '2026-11-23', runs: 1 });
    // The place it gave back is free again.
    expect(await consume(org, newId(), 2, now)).toBe('counted');
    expect(await consume(org, newId(), 2, now)).toBe('limit_reached');
  });

  it("refunds nothing of another organization's run", async () => {
    const org = nextOrganization();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const runId = newId();
    expect(await consume(org, runId, 2, now)).toBe('counted');
    expect(await usage.refundRun(nextOrganization(), runId)).toBe(false);
    expect((await usage.activity(org, now)).at(-1)?.runs).toBe(1);
  });

  it("counts and refunds one organization's runs at once without deadlocking", async () => {
    // The pool's connections race on the organization's month and day rows, as a run start that
    // counts while another gives its count back does.
    const org = nextOrganization();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const counted = Array.from({ length: 40 }, () => newId());
    for (const runId of counted) expect(await consume(org, runId, 1_000, now)).toBe('counted');

    const outcomes = await Promise.allSettled(
      counted.flatMap((runId) => [usage.refundRun(org, runId), consume(org, newId(), 1_000, now)]),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect((await usage.activity(org, now)).at(-1)).toEqual({ date: '2026-11-23', runs: 40 });
    const month = await db
      .selectFrom('catalog.run_usage')
      .select('runs')
      .where('organization_id', '=', org)
      .where('period', '=', sql<Date>`date '2026-11-01'`)
      .execute();
    expect(month).toEqual([{ runs: 40 }]);
  });
});
