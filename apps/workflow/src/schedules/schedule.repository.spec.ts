import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { workflowDataSource } from '../workflow.database.js';
import type { DB } from '../workflow.tables.js';
import { WorkflowRepository } from '../workflows/workflow.repository.js';
import type { ScheduleRecord } from './schedule.mapper.js';
import { ScheduleRepository } from './schedule.repository.js';

/** Who the changes under test are recorded as made by. */
const CALLER = { organizationId: 'org-a', userId: 'user-a', keyId: null };

/** The claims every scheduler replica takes its due rows with, against a real Postgres database of its own. */
const database = scratchDatabase('fm_workflow_schedules_spec');

const LEASE_MS = 60_000;

describe('ScheduleRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let workflows: WorkflowRepository;
  let schedules: ScheduleRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(workflowDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions({ ...workflowDataSource(database.url), poolSize: 2 }));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    workflows = new WorkflowRepository(db);
    schedules = new ScheduleRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  /** A workflow with one schedule row due at `nextRunAt`. */
  async function scheduled(nextRunAt: Date): Promise<ScheduleRecord> {
    const workflow = await workflows.insert(
      {
        organizationId: 'org-a',
        projectId: newId(),
        name: 'Scheduled',
        description: null,
        diagram: { nodes: [], edges: [] },
        createdBy: null,
      },
      CALLER,
    );
    if (!workflow) throw new Error('the workflow was not created');
    const row: ScheduleRecord = {
      workflowId: workflow.id,
      triggerNodeId: 'cron',
      organizationId: 'org-a',
      version: 1,
      cron: '* * * * *',
      timeZone: 'UTC',
      nextRunAt,
      claimedUntil: null,
    };
    await workflows.transaction(async (trx) => {
      await schedules.findForWorkflowForUpdate(workflow.id, trx);
      await schedules.replaceForWorkflow(workflow.id, [row], trx);
    });
    return row;
  }

  const claimedIds = (rows: ScheduleRecord[]) => rows.map((row) => row.workflowId);

  it('claims each due row of a live workflow once, until its lease runs out', async () => {
    const now = new Date();
    const due = await scheduled(new Date(now.getTime() - 1_000));
    const later = await scheduled(new Date(now.getTime() + 60_000));
    const paused = await scheduled(new Date(now.getTime() - 1_000));
    await workflows.update('org-a', paused.workflowId, { pausedAt: now });

    const claimed = await schedules.claimDue(now, 100, LEASE_MS);
    expect(claimedIds(claimed)).toEqual([due.workflowId]);
    expect(claimed[0]).toMatchObject({ ...due, claimedUntil: expect.any(Date) });
    expect(claimedIds(await schedules.claimDue(now, 100, LEASE_MS))).toEqual([]);
    await expect(schedules.nextRunAt(later.workflowId)).resolves.toEqual(later.nextRunAt);

    await schedules.release(due);
    expect(claimedIds(await schedules.claimDue(now, 100, LEASE_MS))).toEqual([due.workflowId]);
    await workflows.markDeleted('org-a', due.workflowId, LEASE_MS, CALLER);
    await schedules.release(due);
    expect(claimedIds(await schedules.claimDue(now, 100, LEASE_MS))).toEqual([]);
  });

  it('moves a claimed row on only while it still holds the due time it was claimed at', async () => {
    const now = new Date();
    const row = await scheduled(new Date(now.getTime() - 1_000));
    const [claimed] = await schedules.claimDue(now, 100, LEASE_MS);
    if (!claimed) throw new Error('nothing was claimed');
    const next = new Date(now.getTime() + 60_000);
    await schedules.advance([{ row: claimed, next }]);
    await expect(schedules.nextRunAt(row.workflowId)).resolves.toEqual(next);
    // A second settle of the same claim finds the row moved on, and leaves it.
    await schedules.advance([{ row: claimed, next: null }]);
    await expect(schedules.nextRunAt(row.workflowId)).resolves.toEqual(next);
    await schedules.advance([{ row: { ...claimed, nextRunAt: next }, next: null }]);
    await expect(schedules.nextRunAt(row.workflowId)).resolves.toBeNull();
  });

  it('settles many claimed rows in one statement: each moved on, ended, or left when it moved on already', async () => {
    const now = new Date();
    const rows = await Promise.all([1, 2, 3, 4].map(() => scheduled(new Date(now.getTime() - 1_000))));
    const claimed = await schedules.claimDue(now, 100, LEASE_MS);
    const [moved, ended, settledBefore, leftOut] = rows.map((row) => {
      const found = claimed.find((claim) => claim.workflowId === row.workflowId);
      if (!found) throw new Error('a due row was not claimed');
      return found;
    }) as [ScheduleRecord, ScheduleRecord, ScheduleRecord, ScheduleRecord];
    const next = new Date(now.getTime() + 60_000);
    const elsewhere = new Date(now.getTime() + 120_000);
    await schedules.advance([{ row: settledBefore, next: elsewhere }]);

    await schedules.advance([
      { row: moved, next },
      { row: ended, next: null },
      { row: settledBefore, next },
    ]);
    await expect(schedules.nextRunAt(moved.workflowId)).resolves.toEqual(next);
    await expect(schedules.nextRunAt(ended.workflowId)).resolves.toBeNull();
    await expect(schedules.nextRunAt(settledBefore.workflowId)).resolves.toEqual(elsewhere);
    // The moved row's claim ended with it; the row left out keeps its claim until it is released.
    expect(claimedIds(await schedules.claimDue(new Date(next.getTime() + 1), 100, LEASE_MS))).toEqual(
      expect.arrayContaining([moved.workflowId]),
    );
    expect(claimedIds(await schedules.claimDue(now, 100, LEASE_MS))).not.toContain(leftOut.workflowId);
  });
});
