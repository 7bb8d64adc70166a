import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import { type Kysely, sql } from 'kysely';
import { DataSource } from 'typeorm';

import { catalogDataSource } from '../catalog.database.js';
import type { DB } from '../catalog.tables.js';
import { ProjectRepository } from './project.repository.js';

/** The project read on the gateway's hot path, against a real Postgres database of its own. */
const database = scratchDatabase('fm_catalog_projects_spec');

describe('ProjectRepository.find', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let projects: ProjectRepository;
  const live = newId();
  const deleted = newId();

  beforeAll(async () => {
    await database.create();
    await migrate(catalogDataSource(database.url));
    // One connection, so the statement prepared by one read is the one the next read finds.
    dataSource = new DataSource(dataSourceOptions({ ...catalogDataSource(database.url), poolSize: 1 }));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    projects = new ProjectRepository(db);
    await db
      .insertInto('catalog.projects')
      .values([
        { id: live, organization_id: 'org-a', name: 'Live', description: 'kept', created_by: 'user-1' },
        { id: deleted, organization_id: 'org-a', name: 'Gone', deleted_at: sql<Date>`now()` },
      ])
      .execute();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it("answers the organization's live project, and nothing of another organization or a deleted one", async () => {
    await expect(projects.find('org-a', live)).resolves.toMatchObject({
      id: live,
      organizationId: 'org-a',
      name: 'Live',
      description: 'kept',
      createdBy: 'user-1',
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    await expect(projects.find('org-b', live)).resolves.toBeNull();
    await expect(projects.find('org-a', deleted)).resolves.toBeNull();
  });

  it('sees a change made after the statement was prepared', async () => {
    await projects.find('org-a', live);
    await db.updateTable('catalog.projects').set({ name: 'Renamed' }).where('id', '=', live).execute();
    await expect(projects.find('org-a', live)).resolves.toMatchObject({ name: 'Renamed' });
    const { rows: prepared } = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements`.execute(
      db,
    );
    expect(prepared.map((statement) => statement.name)).toContain('catalog.projects.find');
  });

  it('answers reads that arrive together, each its own project, from fewer statements', async () => {
    const pool = (dataSource.driver as unknown as { master: { query: (...args: unknown[]) => unknown } })
      .master;
    const query = pool.query.bind(pool);
    let statements = 0;
    pool.query = (...args: unknown[]) => {
      statements += 1;
      return query(...args);
    };
    try {
      const asked = [
        ['org-a', live],
        ['org-b', live],
        ['org-a', deleted],
        ['org-a', newId()],
        ['org-a', live],
      ] as const;
      const answers = await Promise.all(
        asked.map(([organizationId, id]) => projects.find(organizationId, id)),
      );
      expect(answers.map((project) => project?.name ?? null)).toEqual([
        'Renamed',
        null,
        null,
        null,
        'Renamed',
      ]);
      expect(statements).toBeLessThan(asked.length);
    } finally {
      pool.query = query;
    }
  });
});
