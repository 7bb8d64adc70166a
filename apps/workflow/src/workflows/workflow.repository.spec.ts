import type { Diagram } from '#contracts';
import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { workflowDataSource } from '../workflow.database.js';
import type { DB } from '../workflow.tables.js';
import { WorkflowVersionRepository } from './workflow-version.repository.js';
import type { NewWorkflow } from './workflow.mapper.js';
import { WorkflowRepository } from './workflow.repository.js';

/** Who the changes under test are recorded as made by. */
const CALLER = { organizationId: 'org-a', userId: 'user-a', keyId: null };

/** The workflow reads and writes every flow passes through, against a real Postgres database of its own. */
const database = scratchDatabase('fm_workflow_spec');

const DRAFT: Diagram = { nodes: [], edges: [], layout: { zoom: 2, x: 1 } };
const LIVE: Diagram = { nodes: [], edges: [], layout: { x: 3 } };

describe('WorkflowRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let workflows: WorkflowRepository;
  let versions: WorkflowVersionRepository;

  const newWorkflow = (overrides: Partial<NewWorkflow> = {}): NewWorkflow => ({
    organizationId: 'org-a',
    projectId: newId(),
    name: 'Workflow',
    description: null,
    diagram: DRAFT,
    createdBy: 'user-1',
    ...overrides,
  });

  async function published(workflow: NewWorkflow = newWorkflow()): Promise<string> {
    const created = await workflows.insert(workflow, CALLER);
    if (!created) throw new Error('the workflow was not created');
    await workflows.transaction(async (trx) => {
      await versions.insert(
        { workflowId: created.id, number: 1, timeZone: 'Europe/Paris', diagram: LIVE, publishedBy: null },
        trx,
      );
      await workflows.update(workflow.organizationId, created.id, { publishedVersion: 1 }, trx);
    });
    return created.id;
  }

  beforeAll(async () => {
    await database.create();
    await migrate(workflowDataSource(database.url));
    // One connection, so the statement prepared by one read is the one the next read finds.
    dataSource = new DataSource(dataSourceOptions({ ...workflowDataSource(database.url), poolSize: 1 }));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    workflows = new WorkflowRepository(db);
    versions = new WorkflowVersionRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  describe('findRunTarget', () => {
    it('answers the live version, leaving out the diagram the caller holds', async () => {
      const id = await published();
      const live = {
        id,
        name: 'Workflow',
        pausedAt: null,
        publishedVersion: 1,
        timeZone: 'Europe/Paris',
        diagram: LIVE,
      };
      await expect(workflows.findRunTarget('org-a', id, false, null)).resolves.toMatchObject(live);
      await expect(workflows.findRunTarget('org-a', id, false, 1)).resolves.toMatchObject({
        ...live,
        diagram: null,
      });
      await expect(workflows.findRunTarget('org-a', id, true, 1)).resolves.toMatchObject({
        ...live,
        diagram: DRAFT,
      });
      const prepared: Array<{ name: string }> = await dataSource.query(
        'SELECT name FROM pg_prepared_statements',
      );
      expect(prepared.map((statement) => statement.name)).toContain('workflow.workflows.run-target');
    });

    it('answers a workflow never published without a version, and nothing deleted or of another organization', async () => {
      const draftOnly = await workflows.insert(newWorkflow(), CALLER);
      if (!draftOnly) throw new Error('the workflow was not created');
      await expect(workflows.findRunTarget('org-a', draftOnly.id, true, null)).resolves.toMatchObject({
        publishedVersion: null,
        timeZone: null,
        diagram: DRAFT,
      });
      await expect(workflows.findRunTarget('org-b', draftOnly.id, true, null)).resolves.toBeNull();
      expect(await workflows.markDeleted('org-a', draftOnly.id, 60_000, CALLER)).toBe(true);
      await expect(workflows.findRunTarget('org-a', draftOnly.id, true, null)).resolves.toBeNull();
    });
  });

  describe('findRunTargets', () => {
    it('answers many workflows at once, leaving out the diagrams the caller holds or that pass the budget', async () => {
      const [held, last, draftOnly] = await Promise.all([
        published(),
        published(),
        workflows.insert(newWorkflow(), CALLER),
      ]);
      if (!draftOnly) throw new Error('the workflow was not created');
      const ofOther = await published(newWorkflow({ organizationId: 'org-b' }));
      // The same workflow twice, held and not: each is answered in its place.
      const ask = [
        { workflowId: held, knownVersion: 1 },
        { workflowId: held },
        { workflowId: last },
        { workflowId: draftOnly.id },
        { workflowId: ofOther },
      ];
      const answer = async (budget: number) =>
        (await workflows.findRunTargets('org-a', ask, budget)).map(
          (found) =>
            found && {
              id: found.target.id,
              version: found.target.publishedVersion,
              diagram: found.target.diagram,
              diagramLeftOut: found.diagramLeftOut,
            },
        );
      expect(await answer(1_000)).toEqual([
        { id: held, version: 1, diagram: null, diagramLeftOut: false },
        { id: held, version: 1, diagram: LIVE, diagramLeftOut: false },
        { id: last, version: 1, diagram: LIVE, diagramLeftOut: false },
        { id: draftOnly.id, version: null, diagram: null, diagramLeftOut: false },
        null,
      ]);
      // Room for one diagram (as jsonb prints it, a little longer than JSON.stringify, not twice as
      // long): the first asked for gets it, the next is left out.
      expect(await answer(Math.ceil(JSON.stringify(LIVE).length * 1.5))).toMatchObject([
        { diagram: null, diagramLeftOut: false },
        { diagram: LIVE, diagramLeftOut: false },
        { diagram: null, diagramLeftOut: true },
        { diagram: null, diagramLeftOut: false },
        null,
      ]);
    });
  });

  it('keeps a diagram as it was written, key order included', async () => {
    const created = await workflows.insert(newWorkflow(), CALLER);
    if (!created) throw new Error('the workflow was not created');
    const found = await workflows.find('org-a', created.id);
    expect(JSON.stringify(found?.diagram)).toBe(JSON.stringify(DRAFT));
  });

  it('writes only the columns an update names, and moves updated_at', async () => {
    const created = await workflows.insert(newWorkflow({ description: 'kept' }), CALLER);
    if (!created) throw new Error('the workflow was not created');
    const updated = await workflows.update('org-a', created.id, { name: 'Renamed' });
    expect(updated).toMatchObject({ name: 'Renamed', description: 'kept', diagram: DRAFT });
    expect(updated?.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
    await expect(workflows.update('org-b', created.id, { name: 'Stolen' })).resolves.toBeNull();
    await expect(workflows.update('org-a', created.id, {})).resolves.toMatchObject({ name: 'Renamed' });
  });

  it("pages a project's workflows newest first", async () => {
    const projectId = newId();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await workflows.insert(newWorkflow({ projectId, name: `W${index}` }), CALLER);
      if (created) ids.push(created.id);
    }
    const first = await workflows.list('org-a', projectId, { limit: 2 });
    expect(first.data.map((workflow) => workflow.id)).toEqual([ids[2], ids[1]]);
    const second = await workflows.list('org-a', projectId, { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    await expect(workflows.counts('org-a')).resolves.toMatchObject({ workflows: expect.any(Number) });
  });

  it('refuses workflows in a deleted project, and purges the ones it had once claimed', async () => {
    const projectId = newId();
    const kept = await workflows.insert(newWorkflow({ projectId }), CALLER);
    if (!kept) throw new Error('the workflow was not created');
    await expect(workflows.names('org-a', [kept.id, 'not-an-id'])).resolves.toEqual({
      [kept.id]: 'Workflow',
    });
    await expect(workflows.markProjectDeleted('org-a', projectId)).resolves.toBe(1);
    await expect(workflows.markProjectDeleted('org-a', projectId)).resolves.toBe(0);
    await expect(workflows.insert(newWorkflow({ projectId }), CALLER)).resolves.toBeNull();
    await expect(workflows.names('org-a', [kept.id])).resolves.toEqual({});

    const claimed = await workflows.claimDeleted(1_000, 60_000);
    expect(claimed).toContainEqual({ id: kept.id, organizationId: 'org-a' });
    // Leased: a second sweep does not take it again.
    expect(await workflows.claimDeleted(1_000, 60_000)).not.toContainEqual(
      expect.objectContaining({ id: kept.id }),
    );
    await workflows.purge([kept.id]);
    const left = await db.selectFrom('workflow.workflows').select('id').where('id', '=', kept.id).execute();
    expect(left).toEqual([]);
  });

  it('pages versions by number, newest first', async () => {
    const id = await published();
    await versions.insert({
      workflowId: id,
      number: 2,
      timeZone: 'UTC',
      diagram: DRAFT,
      publishedBy: 'user-1',
    });
    const first = await versions.list(id, { limit: 1 });
    expect(first.data.map((version) => version.number)).toEqual([2]);
    const second = await versions.list(id, { limit: 1, cursor: first.nextCursor ?? '' });
    expect(second.data.map((version) => [version.number, version.diagram])).toEqual([[1, LIVE]]);
    expect(second.nextCursor).toBeNull();
    await expect(versions.find(id, 2)).resolves.toMatchObject({ timeZone: 'UTC', publishedBy: 'user-1' });
  });
});
