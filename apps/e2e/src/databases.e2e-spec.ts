import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import {
  adminCli,
  type ApiClient,
  createDatabaseIn,
  createOrganization,
  type ErrorBody,
  expectData,
  type OrganizationFixture,
  queryDatabase,
  rowsOf,
  runningStack,
  type Statement,
  statusOf,
} from '#testing';

const stack = runningStack();
const MiB = 1024 * 1024;

function fileOf(organizationId: string, databaseId: string): string {
  return join(stack.env.DATA_DIR, 'databases', organizationId, `${databaseId}.duckdb`);
}

/** The path parameters of `/api/v1/databases/{id}` and the routes under it. */
const byId = (id: string) => ({ params: { path: { id } } });

/**
 * What each statement answered, run one after another on a database: its result, or the error of
 * the batch it failed. Statements go a hundred at a time; a failure costs one more request, for the
 * results of those before it (the batch rolled them back).
 */
async function answersOf(api: ApiClient, id: string, sqls: string[]): Promise<string[]> {
  const answers: string[] = [];
  let rest = sqls;
  while (rest.length > 0) {
    const batch = rest.slice(0, 100).map((sql) => ({ sql }));
    const answer = await queryDatabase(api, id, batch);
    if (answer.response.status === 200 && answer.data) {
      answers.push(...answer.data.results.map((result) => JSON.stringify(result)));
      rest = rest.slice(batch.length);
      continue;
    }
    const failed = answer.error?.error.details?.statementIndex;
    if (typeof failed !== 'number')
      throw new Error(`${answer.response.status} ${JSON.stringify(answer.error)}`);
    if (failed > 0) answers.push(...(await answersOf(api, id, rest.slice(0, failed))));
    answers.push(JSON.stringify(answer.error));
    rest = rest.slice(failed + 1);
  }
  return answers;
}

describe('databases', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
  });

  describe('routes', () => {
    it('creates, reads, updates and deletes a database, and its file with it', async () => {
      const created = await org.api.POST('/api/v1/databases', {
        body: { name: 'crm', description: 'Leads' },
      });
      expect(created.response.status).toBe(201);
      expect(created.data).toEqual({
        id: expect.any(String),
        name: 'crm',
        description: 'Leads',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const id = created.data!.id;
      expect(existsSync(fileOf(org.organizationId, id))).toBe(true);
      const read = await org.api.GET('/api/v1/databases/{id}', byId(id));
      expect({ status: read.response.status, body: read.data }).toMatchObject({
        status: 200,
        body: created.data,
      });

      const described = await org.api.PATCH('/api/v1/databases/{id}', {
        ...byId(id),
        body: { description: 'Leads and deals' },
      });
      expect(described.response.status).toBe(200);
      expect(described.data).toMatchObject({ id, name: 'crm', description: 'Leads and deals' });
      const renamed = await org.api.PATCH('/api/v1/databases/{id}', {
        ...byId(id),
        body: { name: 'sales-crm', description: 'Leads and deals' },
      });
      expect(renamed.data).toMatchObject({ id, name: 'sales-crm', description: 'Leads and deals' });
      // The description defaults to empty, on PATCH as on create.
      expect(
        (await org.api.PATCH('/api/v1/databases/{id}', { ...byId(id), body: { name: 'sales-crm' } })).data,
      ).toMatchObject({ name: 'sales-crm', description: '' });

      await rowsOf(org.api, id, [{ sql: 'CREATE TABLE t (a INTEGER)' }, { sql: 'INSERT INTO t VALUES (1)' }]);
      const deleted = await org.api.DELETE('/api/v1/databases/{id}', byId(id));
      expect({ status: deleted.response.status, body: deleted.data }).toMatchObject({
        status: 200,
        body: { deleted: true },
      });
      expect(existsSync(fileOf(org.organizationId, id))).toBe(false);
      expect(existsSync(`${fileOf(org.organizationId, id)}.wal`)).toBe(false);
      for (const answer of [
        await org.api.GET('/api/v1/databases/{id}', byId(id)),
        await org.api.PATCH('/api/v1/databases/{id}', { ...byId(id), body: { name: 'again' } }),
        await org.api.DELETE('/api/v1/databases/{id}', byId(id)),
        await queryDatabase(org.api, id, [{ sql: 'SELECT 1' }]),
      ]) {
        expect(answer.response.status).toBe(404);
        expect(answer.error?.error).toEqual({ code: 'database_not_found', message: expect.any(String) });
      }
    });

    it('defaults the description to empty', async () => {
      const created = await org.api.POST('/api/v1/databases', { body: { name: 'no-description' } });
      expect(created.response.status).toBe(201);
      expect(created.data?.description).toBe('');
    });

    it('answers database_name_taken for a name already used in the organization', async () => {
      const first = await createDatabaseIn(org.api, 'taken');
      const second = await createDatabaseIn(org.api, 'free-name');
      const duplicate = await org.api.POST('/api/v1/databases', { body: { name: 'taken' } });
      expect(duplicate.response.status).toBe(409);
      expect(duplicate.error?.error.code).toBe('database_name_taken');
      const renamed = await org.api.PATCH('/api/v1/databases/{id}', {
        ...byId(second),
        body: { name: 'taken' },
      });
      expect(renamed.response.status).toBe(409);
      expect(renamed.error?.error.code).toBe('database_name_taken');
      expect(
        await statusOf(org.api.PATCH('/api/v1/databases/{id}', { ...byId(first), body: { name: 'taken' } })),
      ).toBe(200);
      // Names are unique per organization, not across them.
      expect(await statusOf(other.api.POST('/api/v1/databases', { body: { name: 'taken' } }))).toBe(201);
    });

    it('validates names and descriptions', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 'Upper' }, 'name'],
        [{ name: 'two--hyphens' }, 'name'],
        [{ name: '-edge' }, 'name'],
        [{ name: 'a'.repeat(65) }, 'name'],
        [{ name: 'ok', description: 'x'.repeat(1025) }, 'description'],
        [{ name: 'ok', description: null }, 'description'],
        [{ name: 7 }, 'name'],
      ];
      for (const [body, path] of cases) {
        const response = await org.api.raw.post<ErrorBody>('/api/v1/databases', body);
        expect({ body, status: response.status, code: response.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'invalid_request',
        });
        expect(response.body.error.details?.issues?.map((issue) => issue.path)).toContain(path);
      }
      expect(await statusOf(org.api.POST('/api/v1/databases', { body: { name: 'a'.repeat(64) } }))).toBe(201);
      expect(
        await statusOf(
          org.api.POST('/api/v1/databases', {
            body: { name: 'max-description', description: 'x'.repeat(1024) },
          }),
        ),
      ).toBe(201);
      const id = await createDatabaseIn(org.api, 'patch-checks');
      for (const body of [{ name: 'Bad Name' }, { description: 'x'.repeat(1025) }, { name: null }]) {
        expect((await org.api.raw.patch(`/api/v1/databases/${id}`, body)).status).toBe(400);
      }
    });

    it('answers database_not_found for unknown and malformed ids', async () => {
      for (const id of ['01a1fda9-ac47-73ca-aacb-8e38ce781792', 'not-an-id']) {
        for (const answer of [
          await org.api.GET('/api/v1/databases/{id}', byId(id)),
          await org.api.PATCH('/api/v1/databases/{id}', { ...byId(id), body: { name: 'x' } }),
          await org.api.DELETE('/api/v1/databases/{id}', byId(id)),
          await queryDatabase(org.api, id, [{ sql: 'SELECT 1' }]),
        ]) {
          expect(answer.response.status).toBe(404);
          expect(answer.error?.error.code).toBe('database_not_found');
        }
      }
    });

    it('lists newest first, a page at a time', async () => {
      const fresh = await createOrganization(stack);
      const names = ['d0', 'd1', 'd2', 'd3', 'd4'];
      for (const name of names) await createDatabaseIn(fresh.api, name);
      const first = await fresh.api.GET('/api/v1/databases', { params: { query: { limit: 2 } } });
      expect(first.response.status).toBe(200);
      expect(first.data?.data.map((database) => database.name)).toEqual(['d4', 'd3']);
      expect(first.data?.nextCursor).toEqual(expect.any(String));
      const all = await fresh.api.listAll('/api/v1/databases', { limit: 2 });
      expect(all.map((database) => database.name)).toEqual([...names].reverse());
      expect(await statusOf(fresh.api.GET('/api/v1/databases', { params: { query: { limit: 101 } } }))).toBe(
        400,
      );
    });

    it('stops at the plan limit with plan_limit_reached, even when creations race', async () => {
      const free = await createOrganization(stack, { plan: 'free' });
      const limit = expectData(await free.api.GET('/api/v1/billing'), 200).limits.databases;
      const attempts = await Promise.all(
        Array.from({ length: limit + 3 }, (_, index) =>
          free.api.POST('/api/v1/databases', { body: { name: `race-${index}` } }),
        ),
      );
      expect(attempts.filter((answer) => answer.response.status === 201)).toHaveLength(limit);
      const refused = attempts.filter((answer) => answer.response.status !== 201);
      expect(refused).toHaveLength(3);
      for (const answer of refused) {
        expect(answer.response.status).toBe(402);
        expect(answer.error?.error).toMatchObject({
          code: 'plan_limit_reached',
          details: { resource: 'databases', limit },
        });
      }
      // Deleting one makes room again.
      const [one] = await free.api.listAll('/api/v1/databases');
      expect(await statusOf(free.api.DELETE('/api/v1/databases/{id}', byId(one.id)))).toBe(200);
      expect(await statusOf(free.api.POST('/api/v1/databases', { body: { name: 'after-delete' } }))).toBe(
        201,
      );
    });
  });

  describe('queries', () => {
    let id: string;

    beforeAll(async () => {
      id = await createDatabaseIn(org.api, 'queries');
    });

    it('runs statements in order with bound params and answers one result per statement', async () => {
      const blob = randomBytes(64).toString('base64');
      const answer = await queryDatabase(org.api, id, [
        {
          sql: 'CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR, price DECIMAL(10,2), qty BIGINT, data BLOB, sold_at TIMESTAMP)',
        },
        {
          sql: 'INSERT INTO items VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)',
          params: [
            1,
            'Lamp',
            '19.90',
            '9007199254740993',
            { blob },
            '2024-02-29 12:34:56.123456',
            2,
            'Desk',
            250,
            3,
            null,
            null,
          ],
        },
        { sql: 'UPDATE items SET qty = qty + ? WHERE id = ?', params: [1, 1] },
        { sql: 'SELECT id, name, price, qty, data, sold_at FROM items ORDER BY id' },
        { sql: 'DELETE FROM items WHERE id = ? RETURNING id, name', params: [2] },
        {
          sql: 'SELECT ? AS s, ? AS i, ? AS f, ? AS n, octet_length(?) AS len',
          params: ['text', 42, 1.5, null, { blob }],
        },
        { sql: 'CREATE TABLE copies AS SELECT * FROM items' },
        { sql: 'DELETE FROM items WHERE id > 100' },
      ]);
      expect(answer.error).toBeUndefined();
      expect(answer.response.status).toBe(200);
      expect(answer.data).toEqual({
        results: [
          { columns: [], rows: [], meta: { rowsRead: 0, rowsWritten: 0 } },
          { columns: [], rows: [], meta: { rowsRead: 0, rowsWritten: 2 } },
          { columns: [], rows: [], meta: { rowsRead: 0, rowsWritten: 1 } },
          {
            columns: ['id', 'name', 'price', 'qty', 'data', 'sold_at'],
            rows: [
              [1, 'Lamp', '19.90', '9007199254740994', { blob }, '2024-02-29 12:34:56.123456'],
              [2, 'Desk', '250.00', '3', null, null],
            ],
            meta: { rowsRead: 2, rowsWritten: 0 },
          },
          { columns: ['id', 'name'], rows: [[2, 'Desk']], meta: { rowsRead: 1, rowsWritten: 1 } },
          {
            columns: ['s', 'i', 'f', 'n', 'len'],
            rows: [['text', 42, 1.5, null, '64']],
            meta: { rowsRead: 1, rowsWritten: 0 },
          },
          { columns: [], rows: [], meta: { rowsRead: 0, rowsWritten: 1 } },
          { columns: [], rows: [], meta: { rowsRead: 0, rowsWritten: 0 } },
        ],
      });
    });

    it('round-trips BLOBs byte for byte', async () => {
      const payloads = [Buffer.alloc(0), Buffer.from([0, 255, 0, 10, 13]), randomBytes(256 * 1024)];
      await rowsOf(org.api, id, [{ sql: 'CREATE TABLE files (n INTEGER, body BLOB)' }]);
      await rowsOf(
        org.api,
        id,
        payloads.map((payload, index) => ({
          sql: 'INSERT INTO files VALUES (?, ?)',
          params: [index, { blob: payload.toString('base64') }],
        })),
      );
      const [rows] = await rowsOf(org.api, id, [
        { sql: 'SELECT body, octet_length(body) FROM files ORDER BY n' },
      ]);
      expect(rows).toEqual(
        payloads.map((payload) => [{ blob: payload.toString('base64') }, String(payload.length)]),
      );
      const [literal] = await rowsOf(org.api, id, [{ sql: "SELECT '\\xDE\\xAD\\xBE\\xEF'::BLOB" }]);
      expect(Buffer.from((literal[0][0] as { blob: string }).blob, 'base64')).toEqual(
        Buffer.from('deadbeef', 'hex'),
      );
    });

    it('renders values so no precision is lost', async () => {
      const [rows] = await rowsOf(org.api, id, [
        {
          sql: `SELECT 9223372036854775807::BIGINT, 170141183460469231731687303715884105727::HUGEINT,
            123456789012345678.123456789::DECIMAL(38,9), 2.5::DOUBLE, DATE '2024-02-29', TIMESTAMPTZ '2024-02-29 12:00:00.000001+02',
            TIME '23:59:59.999999', INTERVAL 36 HOUR, true, [1, 2]`,
        },
      ]);
      expect(rows).toEqual([
        [
          '9223372036854775807',
          '170141183460469231731687303715884105727',
          '123456789012345678.123456789',
          2.5,
          '2024-02-29',
          '2024-02-29 10:00:00.000001+00',
          '23:59:59.999999',
          '36:00:00',
          true,
          '[1,2]',
        ],
      ]);
    });

    it('rolls back the whole batch at the first failure and names the failing statement', async () => {
      await rowsOf(org.api, id, [{ sql: 'CREATE TABLE ledger (n INTEGER PRIMARY KEY)' }]);
      const failed = await queryDatabase(org.api, id, [
        { sql: 'INSERT INTO ledger VALUES (1)' },
        { sql: 'CREATE TABLE made_in_failed_batch (x INTEGER)' },
        { sql: 'SELECT * FROM no_such_table' },
        { sql: 'INSERT INTO ledger VALUES (2)' },
      ]);
      expect(failed.response.status).toBe(400);
      expect(failed.error?.error).toEqual({
        code: 'query_failed',
        message: expect.stringContaining('Table with name no_such_table does not exist'),
        details: { statementIndex: 2 },
      });
      const duplicate = await queryDatabase(org.api, id, [
        { sql: 'INSERT INTO ledger VALUES (5)' },
        { sql: 'INSERT INTO ledger VALUES (5)' },
      ]);
      expect(duplicate.response.status).toBe(400);
      expect(duplicate.error?.error.code).toBe('query_failed');
      expect(duplicate.error?.error.details).toEqual({ statementIndex: 1 });
      expect(duplicate.error?.error.message).toMatch(/constraint/i);

      const syntax = await queryDatabase(org.api, id, [{ sql: 'SELEC 1' }]);
      expect(syntax.error?.error).toMatchObject({ code: 'query_failed', details: { statementIndex: 0 } });
      expect(syntax.error?.error.message).toMatch(/syntax error/i);

      const [ledger, tables] = await rowsOf(org.api, id, [
        { sql: 'SELECT count(*) FROM ledger' },
        { sql: "SELECT count(*) FROM information_schema.tables WHERE table_name = 'made_in_failed_batch'" },
      ]);
      expect(ledger).toEqual([['0']]);
      expect(tables).toEqual([['0']]);
    });

    it('refuses a statement whose params do not match its placeholders, or that holds several statements', async () => {
      for (const [statement, pattern] of [
        [{ sql: 'SELECT ? + ?', params: [1] }, /2 placeholder\(s\) but 1 param/],
        [{ sql: 'SELECT 1', params: [1] }, /0 placeholder\(s\) but 1 param/],
        [{ sql: 'SELECT 1; SELECT 2' }, /holds 2/],
        [{ sql: '   ' }, /no SQL statement/],
        [{ sql: 'SELECT ?::INTEGER', params: ['not a number'] }, /Could not convert/],
      ] as Array<[Statement, RegExp]>) {
        const answer = await queryDatabase(org.api, id, [{ sql: 'SELECT 1' }, statement]);
        expect(answer.response.status).toBe(400);
        expect(answer.error?.error).toMatchObject({ code: 'query_failed', details: { statementIndex: 1 } });
        expect(answer.error?.error.message).toMatch(pattern);
      }
    });

    it('validates the batch: 1 to 100 statements of 1 to 100,000 characters with up to 100 params', async () => {
      const path = `/api/v1/databases/${id}/query`;
      const invalid: Array<[unknown, string]> = [
        [{}, 'statements'],
        [{ statements: [] }, 'statements'],
        [{ statements: Array.from({ length: 101 }, () => ({ sql: 'SELECT 1' })) }, 'statements'],
        [{ statements: ['SELECT 1'] }, 'statements.0'],
        [{ statements: [{ sql: '' }] }, 'statements.0.sql'],
        [{ statements: [{}] }, 'statements.0.sql'],
        [{ statements: [{ sql: 'x'.repeat(100_001) }] }, 'statements.0.sql'],
        [{ statements: [{ sql: 'SELECT 1', params: Array(101).fill(1) }] }, 'statements.0.params'],
        [{ statements: [{ sql: 'SELECT ?', params: [true] }] }, 'statements.0.params'],
        [{ statements: [{ sql: 'SELECT ?', params: [[1]] }] }, 'statements.0.params'],
        [{ statements: [{ sql: 'SELECT ?', params: [{ blob: 'not base64!' }] }] }, 'statements.0.params'],
        [{ statements: [{ sql: 'SELECT ?', params: [{ blob: 'AA==', extra: 1 }] }] }, 'statements.0.params'],
        [{ statements: [{ sql: 'SELECT ?', params: 'x' }] }, 'statements.0.params'],
      ];
      for (const [body, issuePath] of invalid) {
        const raw = await org.api.raw.post<ErrorBody>(path, body);
        expect({ body, status: raw.status, code: raw.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'invalid_request',
        });
        expect(raw.body.error.details?.issues?.map((issue) => issue.path)).toContain(issuePath);
      }
      const params = Array.from({ length: 100 }, (_, index) => index);
      const [[sum]] = await rowsOf(org.api, id, [
        { sql: `SELECT ${params.map(() => '?').join(' + ')} AS total`, params },
      ]);
      expect(sum).toEqual([4950]);
    });

    it('carries a batch of 100 statements of 100,000 characters', async () => {
      const statements = Array.from({ length: 100 }, (_, index) => {
        const head = `SELECT ${index} AS n /* `;
        return { sql: `${head}${'x'.repeat(100_000 - head.length - 3)} */` };
      });
      expect(statements.every((statement) => statement.sql.length === 100_000)).toBe(true);
      const results = await rowsOf(org.api, id, statements);
      expect(results.map((rows) => rows[0][0])).toEqual(statements.map((_, index) => index));
    });

    it('answers up to 16 MiB of rows, and rolls back past it with result_too_large', async () => {
      await rowsOf(org.api, id, [{ sql: 'CREATE TABLE wide AS SELECT range AS n FROM range(20000)' }]);
      // Each row serializes as `["<1000 characters>"]` (1,004 bytes, plus a comma).
      const rowSql = (count: number) => `SELECT repeat('x', 1000) FROM wide WHERE n < ${count}`;
      const [rows] = await rowsOf(org.api, id, [{ sql: rowSql(16_000) }]);
      expect(rows).toHaveLength(16_000);

      const tooLarge = await queryDatabase(org.api, id, [
        { sql: 'CREATE TABLE made_before_too_large (x INTEGER)' },
        { sql: rowSql(9_000) },
        { sql: rowSql(9_000) },
      ]);
      expect(tooLarge.response.status).toBe(400);
      expect(tooLarge.error?.error.code).toBe('result_too_large');
      expect(tooLarge.error?.error.details?.bytesRead).toBeGreaterThan(16 * MiB);
      const [tables] = await rowsOf(org.api, id, [
        { sql: "SELECT count(*) FROM information_schema.tables WHERE table_name = 'made_before_too_large'" },
      ]);
      expect(tables).toEqual([['0']]);
    });
  });

  describe('storage', () => {
    /** Four columns of hashes, which DuckDB cannot compress: about 34 bytes a row in the file. */
    const fill = (rows: number) =>
      `SELECT hash(range) a, hash(range + 1) b, hash(range + 2) c, hash(range + 3) d FROM range(${rows})`;
    const MiB = 1024 * 1024;

    async function storageLimits(
      as: OrganizationFixture,
    ): Promise<{ storage: number; databaseStorage: number }> {
      const { limits } = expectData(await as.api.GET('/api/v1/billing'), 200);
      return { storage: limits.storage, databaseStorage: limits.databaseStorage };
    }

    it("refuses a batch that would pass a database's limit, keeps nothing of it, and stops a statement that writes without end", async () => {
      const free = await createOrganization(stack, { plan: 'free' });
      const { databaseStorage } = await storageLimits(free);
      const id = await createDatabaseIn(free.api, 'filled');
      const refused = await queryDatabase(free.api, id, [
        { sql: 'CREATE TABLE small (n INTEGER)' },
        { sql: `CREATE TABLE big AS ${fill(Math.ceil((databaseStorage * 1.3) / 34))}` },
      ]);
      expect(refused.response.status).toBe(402);
      expect(refused.error?.error).toEqual({
        code: 'plan_limit_reached',
        message: expect.stringContaining(`${databaseStorage} bytes of storage per database`),
        details: { resource: 'storage', limit: databaseStorage, scope: 'database' },
      });
      expect(await rowsOf(free.api, id, [{ sql: 'SELECT count(*) FROM information_schema.tables' }])).toEqual(
        [[['0']]],
      );

      // Sixty billion bytes asked for: the statement is stopped once the file passes the limit (were
      // it stopped by its 30 s instead, the answer would be 500 internal).
      const endless = await queryDatabase(free.api, id, [
        { sql: 'CREATE TABLE endless (a UBIGINT, b UBIGINT)' },
        { sql: 'INSERT INTO endless SELECT hash(range), hash(range + 1) FROM range(4000000000)' },
      ]);
      expect(endless.response.status).toBe(402);
      expect(endless.error?.error.details).toEqual({
        resource: 'storage',
        limit: databaseStorage,
        scope: 'database',
      });
      expect(statSync(fileOf(free.organizationId, id)).size).toBeLessThan(databaseStorage + 128 * MiB);
      const billing = expectData(await free.api.GET('/api/v1/billing'), 200);
      expect(billing.usage.storage).toBeLessThan(MiB);
    });

    it("adds an organization's databases up against its own limit, and billing shows the usage", async () => {
      const free = await createOrganization(stack, { plan: 'free' });
      const { storage, databaseStorage } = await storageLimits(free);
      expect(storage).toBeLessThan(2 * databaseStorage);
      const [first, second] = [
        await createDatabaseIn(free.api, 'first'),
        await createDatabaseIn(free.api, 'second'),
      ];
      // Each under its own limit, both together past the organization's.
      const rows = Math.floor((databaseStorage * 0.85) / 34);
      await rowsOf(free.api, first, [{ sql: `CREATE TABLE t AS ${fill(rows)}` }]);
      const billing = expectData(await free.api.GET('/api/v1/billing'), 200);
      expect(billing.usage.storage).toBeGreaterThan(databaseStorage * 0.6);
      expect(billing.usage.databaseStorage).toBe(billing.usage.storage);
      expect(billing.limits).toMatchObject({ storage, databaseStorage });

      const refused = await queryDatabase(free.api, second, [{ sql: `CREATE TABLE t AS ${fill(rows)}` }]);
      expect(refused.response.status).toBe(402);
      expect(refused.error?.error.details).toEqual({
        resource: 'storage',
        limit: storage,
        scope: 'organization',
      });
      expect(refused.error?.error.message).toContain("all of an organization's databases together");
      await rowsOf(free.api, second, [{ sql: `CREATE TABLE t AS ${fill(Math.floor(rows / 4))}` }]);
      const after = expectData(await free.api.GET('/api/v1/billing'), 200).usage;
      expect(after.storage).toBeGreaterThan(billing.usage.storage);
      expect(after.storage).toBeLessThanOrEqual(storage);
      expect(after.databaseStorage).toBe(billing.usage.storage);
    });

    it('lets a database past its limit read and delete, and write again once under it', async () => {
      const shrunk = await createOrganization(stack, { plan: 'pro' });
      const id = await createDatabaseIn(shrunk.api, 'shrunk');
      await rowsOf(shrunk.api, id, [
        { sql: `CREATE TABLE t AS ${fill(4_000_000)}` },
        { sql: 'CREATE TABLE u (n INTEGER)' },
      ]);
      // The plan is lowered under what the database holds.
      await adminCli(['org', 'set-plan', '--org', shrunk.organizationId, '--plan', 'free'], stack.env);
      const write = await queryDatabase(shrunk.api, id, [{ sql: 'INSERT INTO u VALUES (1)' }]);
      expect(write.response.status).toBe(402);
      expect(write.error?.error.message).toMatch(/only batches that read or delete/);
      expect(await rowsOf(shrunk.api, id, [{ sql: 'SELECT count(*) FROM t' }])).toEqual([[['4000000']]]);
      await rowsOf(shrunk.api, id, [{ sql: 'DROP TABLE t' }]);
      expect(await rowsOf(shrunk.api, id, [{ sql: 'INSERT INTO u VALUES (1)' }])).toEqual([[]]);
      expect(expectData(await shrunk.api.GET('/api/v1/billing'), 200).usage.storage).toBeLessThan(MiB);
    });
  });

  describe('isolation', () => {
    let id: string;
    let othersId: string;

    beforeAll(async () => {
      [id, othersId] = await Promise.all([
        createDatabaseIn(org.api, 'isolated'),
        createDatabaseIn(other.api, 'neighbour'),
      ]);
      await rowsOf(org.api, id, [
        { sql: 'CREATE TABLE secrets (s VARCHAR)' },
        { sql: "INSERT INTO secrets VALUES ('mine')" },
      ]);
    });

    it("keeps an organization's databases out of another's reach", async () => {
      for (const answer of [
        await other.api.GET('/api/v1/databases/{id}', byId(id)),
        await other.api.PATCH('/api/v1/databases/{id}', { ...byId(id), body: { name: 'stolen' } }),
        await other.api.DELETE('/api/v1/databases/{id}', byId(id)),
        await queryDatabase(other.api, id, [{ sql: 'SELECT * FROM secrets' }]),
      ]) {
        expect(answer.response.status).toBe(404);
        expect(answer.error?.error.code).toBe('database_not_found');
      }
      const theirs = await other.api.listAll('/api/v1/databases');
      expect(theirs.map((database) => database.id)).toContain(othersId);
      expect(theirs.map((database) => database.id)).not.toContain(id);
      expect((await org.api.GET('/api/v1/databases/{id}', byId(id))).data?.name).toBe('isolated');
    });

    it('refuses SQL that reaches files, other databases, extensions or the settings', async () => {
      const leak = join(stack.env.DATA_DIR, 'leaked.csv');
      const refused = [
        `ATTACH '${fileOf(other.organizationId, othersId)}' AS neighbour`,
        `ATTACH '${join(stack.env.DATA_DIR, 'new.duckdb')}' AS fresh`,
        "ATTACH ':memory:' AS scratch",
        'DETACH scratch',
        `COPY secrets TO '${leak}'`,
        `COPY (SELECT 1) TO '/tmp/flowmesh-leak.parquet' (FORMAT parquet)`,
        "COPY secrets FROM '/etc/hostname'",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_blob('/etc/hostname')",
        "SELECT * FROM read_json('/etc/hostname')",
        "SELECT * FROM read_parquet('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM 'https://example.com/data.csv'",
        `EXPORT DATABASE '${join(stack.env.DATA_DIR, 'export')}'`,
        `IMPORT DATABASE '${join(stack.env.DATA_DIR, 'export')}'`,
        'INSTALL httpfs',
        'LOAD httpfs',
        'LOAD json',
        'SET enable_external_access = true',
        'SET lock_configuration = false',
        "SET allowed_directories = ['/']",
        'SET autoload_known_extensions = true',
        "CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's')",
        'BEGIN TRANSACTION',
        'COMMIT',
        'ROLLBACK',
        'PRAGMA enable_profiling',
        // Table functions that change the engine although its configuration is locked.
        "CALL enable_logging(storage = 'file', storage_path = '/tmp/flowmesh-log')",
        'SELECT * FROM "system"."main"."enable_logging"()',
        'SELECT * FROM enable_profiling()',
        "CREATE VIEW logs_on AS SELECT * FROM query('SELECT * FROM enable_' || 'logging()')",
        "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
      ];
      for (const sql of refused) {
        const answer = await queryDatabase(org.api, id, [
          { sql: "INSERT INTO secrets VALUES ('side effect')" },
          { sql },
        ]);
        expect({ sql, status: answer.response.status, code: answer.error?.error.code }).toEqual({
          sql,
          status: 400,
          code: 'query_failed',
        });
        expect(answer.error?.error.details).toEqual({ statementIndex: 1 });
      }
      expect(existsSync(leak)).toBe(false);
      expect(existsSync(join(stack.env.DATA_DIR, 'new.duckdb'))).toBe(false);
      expect(await rowsOf(org.api, id, [{ sql: 'SELECT s FROM secrets' }])).toEqual([[['mine']]]);
      expect(await rowsOf(other.api, othersId, [{ sql: 'SELECT 1' }])).toEqual([[[1]]]);
    });

    it('refuses query() even when its SQL comes as a param', async () => {
      const answer = await queryDatabase(org.api, id, [
        { sql: 'SELECT * FROM query /* indirect */ (?)', params: ['SELECT * FROM enable_logging()'] },
      ]);
      expect(answer.response.status).toBe(400);
      expect(answer.error?.error).toMatchObject({ code: 'query_failed', details: { statementIndex: 0 } });
      // A column may still be called query.
      const [, , rows] = await rowsOf(org.api, id, [
        { sql: 'CREATE TABLE searches (query VARCHAR)' },
        { sql: 'INSERT INTO searches (query) VALUES (?)', params: ['enable_logging()'] },
        { sql: 'SELECT query FROM searches' },
      ]);
      expect(rows).toEqual([['enable_logging()']]);
    });

    it("shows no server path nor the organization's id, whatever the engine is asked", async () => {
      // The service's home directory too: pg_settings showed the engine's secret directory under it.
      const hidden = [stack.env.DATA_DIR!, org.organizationId, homedir()];
      const probes = [
        "SELECT current_setting('temp_directory')",
        'SELECT name, value FROM duckdb_settings()',
        'SELECT path FROM duckdb_databases()',
        'PRAGMA database_list',
        'SELECT * FROM duckdb_extensions()',
        'PRAGMA extension_versions',
        'SELECT path FROM duckdb_temporary_files()',
        'SELECT name, setting FROM pg_settings',
      ];
      for (const sql of probes) {
        const answer = await queryDatabase(org.api, id, [{ sql }]);
        expect({ sql, status: answer.response.status, code: answer.error?.error.code }).toEqual({
          sql,
          status: 400,
          code: 'query_failed',
        });
        expect(answer.error?.error.message).toMatch(/^Permission Error: /);
      }
      // Every table function, pragma and scalar function the engine offers that takes no argument:
      // a new DuckDB that adds one showing paths fails here.
      const [functions] = await rowsOf(org.api, id, [
        {
          sql: `SELECT DISTINCT function_type, function_name FROM duckdb_functions()
                 WHERE len(parameters) = 0 AND function_type IN ('table', 'pragma', 'scalar')
                 ORDER BY ALL`,
        },
      ]);
      expect(functions.length).toBeGreaterThan(50);
      const sqls = (functions as Array<[string, string]>).map(([type, name]) =>
        type === 'pragma'
          ? `PRAGMA ${name}`
          : type === 'table'
            ? `SELECT * FROM ${name}()`
            : `SELECT ${name}()`,
      );
      // And every view the engine brings (pg_catalog's and information_schema's among them).
      const [views] = await rowsOf(org.api, id, [
        { sql: 'SELECT schema_name, view_name FROM duckdb_views() WHERE internal ORDER BY ALL' },
      ]);
      expect(views.length).toBeGreaterThan(20);
      sqls.push(
        ...(views as Array<[string, string]>).map(([schema, view]) => `SELECT * FROM ${schema}.${view}`),
      );
      const answers = await answersOf(org.api, id, sqls);
      const shown = sqls.filter((_sql, index) => hidden.some((text) => answers[index]!.includes(text)));
      expect(shown).toEqual([]);
    });

    it('still runs reading pragmas and catalog queries of its own database', async () => {
      const [columns, tables] = await rowsOf(org.api, id, [
        { sql: "PRAGMA table_info('secrets')" },
        { sql: "SELECT table_name FROM information_schema.tables WHERE table_name = 'secrets'" },
      ]);
      expect(columns).toEqual([[0, 's', 'VARCHAR', false, null, false]]);
      expect(tables).toEqual([['secrets']]);
    });
  });

  describe('concurrency', () => {
    let id: string;

    beforeAll(async () => {
      id = await createDatabaseIn(org.api, 'busy');
      await rowsOf(org.api, id, [
        { sql: 'CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER)' },
        { sql: 'INSERT INTO counter VALUES (1, 0)' },
        { sql: 'CREATE TABLE log (writer INTEGER)' },
      ]);
    });

    it('applies concurrent batches on one database without losing or mixing any', async () => {
      const writers = 12;
      const answers = await Promise.all(
        Array.from({ length: writers * 2 }, (_, index) =>
          index % 2 === 0
            ? queryDatabase(org.api, id, [
                { sql: 'UPDATE counter SET n = n + 1 WHERE id = 1' },
                { sql: 'INSERT INTO log VALUES (?)', params: [index] },
              ])
            : // A reader sees one snapshot: the counter always equals the log it wrote.
              queryDatabase(org.api, id, [
                { sql: 'SELECT n FROM counter' },
                { sql: 'SELECT count(*)::INTEGER FROM log' },
              ]),
        ),
      );
      for (const answer of answers) expect(answer.response.status).toBe(200);
      for (const answer of answers.filter((_, index) => index % 2 === 1)) {
        const [[[n]], [[logged]]] = expectData(answer, 200).results.map((result) => result.rows);
        expect(n).toBe(logged);
      }
      expect(
        await rowsOf(org.api, id, [{ sql: 'SELECT n FROM counter' }, { sql: 'SELECT count(*) FROM log' }]),
      ).toEqual([[[writers]], [[String(writers)]]]);
    });

    it('keeps a failing batch from touching the one beside it', async () => {
      await rowsOf(org.api, id, [{ sql: 'CREATE TABLE pairs (batch VARCHAR, n INTEGER)' }]);
      const insert = (batch: string): Statement => ({
        sql: 'INSERT INTO pairs SELECT ?, range FROM range(500)',
        params: [batch],
      });
      const [failing, passing] = await Promise.all([
        queryDatabase(org.api, id, [insert('a'), { sql: 'SELECT 1 / 0 FROM no_such_table' }]),
        queryDatabase(org.api, id, [insert('b')]),
      ]);
      expect(failing.response.status).toBe(400);
      expect(passing.response.status).toBe(200);
      expect(
        await rowsOf(org.api, id, [{ sql: 'SELECT batch, count(*) FROM pairs GROUP BY batch' }]),
      ).toEqual([[['b', '500']]]);
    });

    it('lets a SELECT that writes (nextval) run beside other batches', async () => {
      await rowsOf(org.api, id, [{ sql: 'CREATE SEQUENCE ids' }]);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => queryDatabase(org.api, id, [{ sql: "SELECT nextval('ids')" }])),
      );
      const values = answers.map((answer) => {
        expect(answer.response.status).toBe(200);
        return Number(expectData(answer, 200).results[0].rows[0][0]);
      });
      expect([...values].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    });
  });
});
