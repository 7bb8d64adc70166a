import { requestContext } from '#common';
import { scratchDatabase } from '#testing';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';

import { kyselyOnPool } from '../kysely.js';
import { safeDetails } from './audit-entry.js';
import { AuditLog } from './audit-log.js';
import { auditEntriesMigration } from './audit-migration.js';
import { AuditRetention } from './audit-retention.js';

/** The audit log against a real Postgres: what a write keeps, paging, append-only, retention. */
describe('AuditLog', () => {
  const database = scratchDatabase('fm_audit_spec');
  const log = new AuditLog('spec');
  const member = { organizationId: 'org-a', userId: 'user-1', keyId: null };
  let pool: pg.Pool;
  let db: Kysely<unknown>;

  beforeAll(async () => {
    await database.create();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    db = kyselyOnPool(pool);
    await sql`CREATE SCHEMA spec`.execute(db);
    for (const statement of auditEntriesMigration('spec').up) await sql.raw(statement).execute(db);
  });

  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const event = (id: string) => ({
    action: 'thing.changed',
    resource: { type: 'thing', id, name: `T ${id}` },
  });

  it('records who, what and from where, with the request context', async () => {
    await requestContext.run({ requestId: 'req-1', clientAddress: '203.0.113.9', userAgent: 'spec/1' }, () =>
      log.record(db, member, { ...event('a'), details: { fields: ['name'] } }),
    );
    await log.record(db, { organizationId: 'org-a', userId: null, keyId: 'key-1' }, event('b'));
    await log.record(db, { organizationId: 'org-a', userId: null, keyId: null }, event('c'));
    const entries = await log.list(db, 'org-a', { filter: {}, limit: 10 });
    expect(entries.map((entry) => [entry.resource.id, entry.actor])).toEqual([
      ['c', { type: 'service', id: null }],
      ['b', { type: 'key', id: 'key-1' }],
      ['a', { type: 'member', id: 'user-1' }],
    ]);
    expect(entries[2]).toMatchObject({
      action: 'thing.changed',
      resource: { type: 'thing', id: 'a', name: 'T a' },
      details: { fields: ['name'] },
      clientAddress: '203.0.113.9',
      userAgent: 'spec/1',
      requestId: 'req-1',
    });
    expect(entries[0]).toMatchObject({ clientAddress: null, userAgent: null, requestId: null });
    expect(await log.list(db, 'org-b', { filter: {}, limit: 10 })).toEqual([]);
  });

  it('pages newest first by (at, id) from any position, every entry once', async () => {
    for (let index = 0; index < 7; index += 1) await log.record(db, member, event(`p${index}`));
    const whole = await log.list(db, 'org-a', { filter: {}, limit: 100 });
    const paged = [];
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const page = await log.list(db, 'org-a', { filter: {}, limit: 2, ...(after ? { after } : {}) });
      paged.push(...page);
      if (page.length < 2) break;
      after = { at: page.at(-1)!.at, id: page.at(-1)!.id };
    }
    expect(paged.map((entry) => entry.id)).toEqual(whole.map((entry) => entry.id));
  });

  it('filters by action, a prefix, actor, resource and time', async () => {
    await log.record(db, member, { action: 'other.made', resource: { type: 'other', id: 'o1' } });
    const list = (filter: object) => log.list(db, 'org-a', { filter, limit: 100 });
    expect((await list({ action: 'other.made' })).map((entry) => entry.resource.id)).toEqual(['o1']);
    expect((await list({ action: 'other.' })).map((entry) => entry.resource.id)).toEqual(['o1']);
    expect(await list({ action: 'other' })).toEqual([]);
    expect((await list({ actorType: 'key' })).map((entry) => entry.resource.id)).toEqual(['b']);
    expect((await list({ actorId: 'key-1' })).map((entry) => entry.resource.id)).toEqual(['b']);
    expect(
      (await list({ resourceType: 'thing', resourceId: 'p3' })).map((entry) => entry.resource.id),
    ).toEqual(['p3']);
    expect(await list({ from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(await list({ to: '2000-01-01T00:00:00Z' })).toEqual([]);
  });

  it('refuses to change an entry', async () => {
    await expect(sql`UPDATE spec.audit_entries SET action = 'forged'`.execute(db)).rejects.toThrow(
      /append-only/,
    );
  });

  it('joins the transaction of the change: a rollback keeps neither', async () => {
    await expect(
      log
        .recording(
          db,
          member,
          async () => {
            await Promise.resolve();
            return { id: 'rolled' };
          },
          () => event('rolled'),
        )
        .then(() =>
          db.transaction().execute(async (trx) => {
            await log.record(trx, member, event('never'));
            throw new Error('the change failed');
          }),
        ),
    ).rejects.toThrow('the change failed');
    const ids = (await log.list(db, 'org-a', { filter: {}, limit: 100 })).map((entry) => entry.resource.id);
    expect(ids).toContain('rolled');
    expect(ids).not.toContain('never');
  });

  it('deletes entries older than the retention window, in batches', async () => {
    const before = (await log.list(db, 'org-a', { filter: {}, limit: 100 })).length;
    await sql`
      INSERT INTO spec.audit_entries (id, organization_id, at, actor_type, action, resource_type, resource_id)
      SELECT gen_random_uuid(), 'org-a', now() - make_interval(days => 401) - make_interval(secs => n),
        'service', 'old.entry', 'thing', 'old-' || n
      FROM generate_series(1, 2500) AS n`.execute(db);
    const retention = new AuditRetention(log, db, 400, (error) => {
      throw error;
    });
    await expect(retention.sweep()).resolves.toBe(2500);
    expect(await log.list(db, 'org-a', { filter: { action: 'old.entry' }, limit: 10 })).toEqual([]);
    expect((await log.list(db, 'org-a', { filter: {}, limit: 100 })).length).toBe(before);
  });

  it('keeps no secret-looking detail and cuts long text', () => {
    expect(
      safeDetails({
        name: 'x',
        secret: 's',
        apiKey: 'k',
        password: 'p',
        nested: { accessToken: 't', kept: 1 },
        long: 'y'.repeat(500),
      }),
    ).toEqual({ name: 'x', nested: { kept: 1 }, long: `${'y'.repeat(200)}…` });
  });
});
