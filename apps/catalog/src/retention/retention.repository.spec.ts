import { DomainException } from '#common';
import { type AdminRetentionSet, type OrganizationRetention, RETENTION_KINDS } from '#contracts';
import { dataSourceOptions, kyselyOn, migrate } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { DataSource } from 'typeorm';

import { migrateAuth } from '../auth/auth.factory.js';
import { AuthRepository } from '../auth/auth.repository.js';
import type { AuthService } from '../auth/auth.service.js';
import { PlanRepository } from '../billing/plan.repository.js';
import { PlanService } from '../billing/plan.service.js';
import { UsageRepository } from '../billing/usage.repository.js';
import { catalogDataSource } from '../catalog.database.js';
import type { DB } from '../catalog.tables.js';
import { RetentionRepository } from './retention.repository.js';
import { RetentionService } from './retention.service.js';
import { effectiveDays, type ScopeSettings } from './retention.util.js';

/**
 * Retention settings against a real Postgres database of its own, better-auth's organizations
 * included: how a plan's and an organization's settings resolve, as the operator sets them and as
 * the runner is answered.
 */
const database = scratchDatabase('fm_catalog_retention_spec');

/** Six organizations: on free (no plan row, a row, a plan the code no longer knows), pro, enterprise. */
const ORGANIZATIONS: Array<[string, string | null]> = [
  ['org-1-free-no-row', null],
  ['org-2-free', 'free'],
  ['org-3-retired-plan', 'gold'],
  ['org-4-pro', 'pro'],
  ['org-5-pro', 'pro'],
  ['org-6-enterprise', 'enterprise'],
];

describe('retention settings', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let repository: RetentionRepository;
  let service: RetentionService;

  beforeAll(async () => {
    await database.create();
    await migrate(catalogDataSource(database.url));
    await migrateAuth(
      {
        databaseUrl: database.url,
        secret: 'a-test-secret-of-at-least-thirty-two-chars',
        publicUrl: 'http://localhost',
        signup: 'closed',
      },
      pino({ level: 'silent' }),
    );
    dataSource = new DataSource(dataSourceOptions({ ...catalogDataSource(database.url), poolSize: 4 }));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    repository = new RetentionRepository(db);
    const accounts = new AuthRepository(db);
    // Only whether an organization exists is asked of auth; better-auth itself is not needed.
    const auth = { organizationExists: (id: string) => accounts.organizationExists(id) } as AuthService;
    service = new RetentionService(
      repository,
      new PlanService(new PlanRepository(db), new UsageRepository(db)),
      auth,
    );
    await db
      .insertInto('auth.organization')
      .values(ORGANIZATIONS.map(([id]) => ({ id, name: id, slug: id, createdAt: new Date() })))
      .execute();
    const planned = ORGANIZATIONS.filter((entry): entry is [string, string] => entry[1] !== null);
    await db
      .insertInto('catalog.organization_plans')
      .values(planned.map(([organization_id, plan]) => ({ organization_id, plan })))
      .execute();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  const set = (request: AdminRetentionSet) => service.set(request);
  const trimming = async (limit = 100) => {
    const pages: OrganizationRetention[][] = [];
    let after: string | undefined;
    do {
      const page = await service.organizationsToTrim({ limit, ...(after ? { after } : {}) });
      pages.push(page.organizations);
      after = page.next ?? undefined;
    } while (after !== undefined);
    return pages;
  };

  /** The SQL resolution and `effectiveDays` must agree on every organization. */
  async function expectSqlAgreesWithTheRule(): Promise<void> {
    const plans = await repository.settingsOf('plan', ['free', 'pro', 'enterprise']);
    const own = await repository.settingsOf(
      'organization',
      ORGANIZATIONS.map(([id]) => id),
    );
    const expected = ORGANIZATIONS.map(([id, plan]) => {
      const planSettings: ScopeSettings =
        plans.get(plan === 'pro' || plan === 'enterprise' ? plan : 'free') ?? {};
      const [stepPayloadDays, diagramDays] = RETENTION_KINDS.map((kind) =>
        effectiveDays(planSettings, own.get(id) ?? {}, kind),
      );
      return { organizationId: id, stepPayloadDays: stepPayloadDays!, diagramDays: diagramDays! };
    }).filter((row) => row.stepPayloadDays !== null || row.diagramDays !== null);
    expect((await trimming()).flat()).toEqual(expected);
  }

  it('keeps everything by default: no organization has anything to trim', async () => {
    expect(await trimming()).toEqual([[]]);
    const shown = await service.show({});
    expect(shown).toEqual({
      plans: [
        { plan: 'free', stepPayloadDays: null, diagramDays: null },
        { plan: 'pro', stepPayloadDays: null, diagramDays: null },
        { plan: 'enterprise', stepPayloadDays: null, diagramDays: null },
      ],
      organizations: [],
      more: false,
    });
  });

  it("applies a plan's setting to its organizations, an unknown or missing plan counting as free", async () => {
    expect(await set({ plan: 'free', stepPayloadDays: 30 })).toEqual({
      plan: 'free',
      stepPayloadDays: 30,
      diagramDays: null,
    });
    expect((await trimming()).flat()).toEqual([
      { organizationId: 'org-1-free-no-row', stepPayloadDays: 30, diagramDays: null },
      { organizationId: 'org-2-free', stepPayloadDays: 30, diagramDays: null },
      { organizationId: 'org-3-retired-plan', stepPayloadDays: 30, diagramDays: null },
    ]);
    await expectSqlAgreesWithTheRule();
  });

  it("lets an organization's setting win over its plan's, an explicit keep included, kind by kind", async () => {
    await set({ plan: 'pro', stepPayloadDays: 90, diagramDays: 365 });
    expect(await set({ organizationId: 'org-4-pro', diagramDays: 7 })).toEqual({
      organizationId: 'org-4-pro',
      plan: 'pro',
      overrides: { diagramDays: 7 },
      effective: { stepPayloadDays: 90, diagramDays: 7 },
    });
    expect(await set({ organizationId: 'org-2-free', stepPayloadDays: 'keep' })).toMatchObject({
      overrides: { stepPayloadDays: 'keep' },
      effective: { stepPayloadDays: null, diagramDays: null },
    });
    // An organization with days of its own on a plan that keeps everything.
    await set({ organizationId: 'org-6-enterprise', stepPayloadDays: 14 });
    expect((await trimming()).flat()).toEqual([
      { organizationId: 'org-1-free-no-row', stepPayloadDays: 30, diagramDays: null },
      { organizationId: 'org-3-retired-plan', stepPayloadDays: 30, diagramDays: null },
      { organizationId: 'org-4-pro', stepPayloadDays: 90, diagramDays: 7 },
      { organizationId: 'org-5-pro', stepPayloadDays: 90, diagramDays: 365 },
      { organizationId: 'org-6-enterprise', stepPayloadDays: 14, diagramDays: null },
    ]);
    await expectSqlAgreesWithTheRule();
  });

  it('answers the runner in pages that together list each organization once', async () => {
    const pages = await trimming(2);
    expect(pages.map((page) => page.map((row) => row.organizationId))).toEqual([
      ['org-1-free-no-row', 'org-3-retired-plan'],
      ['org-4-pro', 'org-5-pro'],
      ['org-6-enterprise'],
    ]);
  });

  it("follows the plan again once an organization's own setting is removed, and a plan's keep removes its setting", async () => {
    await set({ organizationId: 'org-2-free', stepPayloadDays: 'plan' });
    await set({ plan: 'pro', diagramDays: 'keep' });
    expect(await service.show({ organizationId: 'org-2-free' })).toMatchObject({
      organizations: [
        { organizationId: 'org-2-free', plan: 'free', overrides: {}, effective: { stepPayloadDays: 30 } },
      ],
    });
    const shown = await service.show({});
    expect(shown.plans).toContainEqual({ plan: 'pro', stepPayloadDays: 90, diagramDays: null });
    expect(shown.organizations.map((row) => [row.organizationId, row.overrides, row.effective])).toEqual([
      ['org-4-pro', { diagramDays: 7 }, { stepPayloadDays: 90, diagramDays: 7 }],
      ['org-6-enterprise', { stepPayloadDays: 14 }, { stepPayloadDays: 14, diagramDays: null }],
    ]);
    await expectSqlAgreesWithTheRule();
  });

  it("records an organization's change in its audit log, by the service", async () => {
    const entries = await db
      .selectFrom('catalog.audit_entries')
      .select(['action', 'actor_type', 'resource_type', 'details'])
      .where('organization_id', '=', 'org-4-pro')
      .execute();
    expect(entries).toEqual([
      {
        action: 'retention.changed',
        actor_type: 'service',
        resource_type: 'retention',
        details: { diagramDays: 7 },
      },
    ]);
  });

  it('refuses what cannot be meant', async () => {
    const refused = async (request: AdminRetentionSet) => {
      const error = await set(request).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DomainException);
      return (error as DomainException).code;
    };
    expect(await refused({ stepPayloadDays: 3 })).toBe('invalid_request');
    expect(await refused({ plan: 'free', organizationId: 'org-2-free', stepPayloadDays: 3 })).toBe(
      'invalid_request',
    );
    expect(await refused({ plan: 'free' })).toBe('invalid_request');
    expect(await refused({ plan: 'free', diagramDays: 'plan' })).toBe('invalid_request');
    expect(await refused({ organizationId: 'no-such-org', diagramDays: 3 })).toBe('not_found');
  });
});
