import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { DiscoveryService } from '@nestjs/core';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { DataSource } from 'typeorm';

import type { RunnerConfig } from '../runner.config.js';
import { runnerDataSource } from '../runner.database.js';
import type { DB } from '../runner.tables.js';
import { type NewRun, triggerStepOf } from '../runs/new-run.js';
import { RunControlRepository } from '../runs/run-control.repository.js';
import { RunRepository } from '../runs/run.repository.js';
import type { RunEnding, RunEndingHandler } from './run-ending.js';
import { RunEndingRepository } from './run-ending.repository.js';
import { RunEndings } from './run-endings.service.js';
import { watchesEnd } from './watches-end.js';
import { UNGATED } from '../start/run-flow.js';

/** The outbox of ended runs against a real Postgres: which ends are recorded, and how handlers are called. */
const database = scratchDatabase('fm_run_endings_spec');
const LEASE_MS = 60_000;
const caller = { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' as const };

function newRun(settings?: Record<string, unknown>): NewRun {
  return {
    id: newId(),
    organizationId: 'org-1',
    workflowId: 'wf-1',
    workflowName: 'Workflow',
    projectId: 'project-1',
    version: 1,
    trigger: 'api',
    triggerNodeId: 't',
    createdBy: null,
    principal: caller,
    input: '{}',
    diagram: {
      nodes: [{ id: 't', data: { type: 'trigger', properties: { kind: 'api' } } }],
      edges: [],
      ...(settings ? { settings } : {}),
    },
    timeZone: 'UTC',
    idempotencyKey: null,
    idempotencyFingerprint: null,
    triggerOutput: { payload: '{}' },
    createdAt: new Date(),
    rerunOf: null,
    traceParent: null,
    errorOfRunId: null,
    flow: UNGATED,
  };
}

/** A handler that fails its first `failures` calls. */
class CountingHandler implements RunEndingHandler {
  readonly calls: RunEnding[] = [];
  constructor(
    readonly name: string,
    private failures = 0,
  ) {}
  async handle(ending: RunEnding): Promise<void> {
    this.calls.push(ending);
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error(`${this.name} is down`);
    }
  }
}

describe('the run endings outbox', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let runs: RunRepository;
  let control: RunControlRepository;
  let endingRows: RunEndingRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(runnerDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions(runnerDataSource(database.url, 4)));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    runs = new RunRepository(db);
    control = new RunControlRepository(db);
    endingRows = new RunEndingRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  beforeEach(() => db.deleteFrom('runner.run_endings').execute());

  const outbox = () =>
    db.selectFrom('runner.run_endings').select(['run_id', 'status']).orderBy('created_at').execute();

  function relay(handlers: RunEndingHandler[], maxAttempts = 3): RunEndings {
    const discovery = { getProviders: () => handlers.map((instance) => ({ instance })) };
    const config = { RUNNER_ENDINGS_MAX_ATTEMPTS: maxAttempts } as RunnerConfig;
    const endings = new RunEndings(
      discovery as unknown as DiscoveryService,
      endingRows,
      runs,
      config,
      pino({ level: 'silent' }),
    );
    endings.onModuleInit();
    return endings;
  }

  /** Makes a retried ending due now, as time would. */
  const dueNow = () =>
    db
      .updateTable('runner.run_endings')
      .set({ next_attempt_at: new Date(0) })
      .execute();

  it('watches the runs whose diagram asks for something at their end, and only those', () => {
    expect(watchesEnd(newRun({ errorWorkflowId: 'wf-2' }).diagram)).toBe(true);
    expect(watchesEnd(newRun({ notifications: [{ endpointId: 'n' }] }).diagram)).toBe(true);
    expect(watchesEnd(newRun({ notifications: [] }).diagram)).toBe(false);
    expect(watchesEnd(newRun({ onError: 'rollback' }).diagram)).toBe(false);
    expect(watchesEnd(newRun().diagram)).toBe(false);
  });

  it("records the end of a watched run whichever statement ends it, once, and never an unwatched run's", async () => {
    const checkpointed = newRun({ errorWorkflowId: 'wf-2' });
    const unwatched = newRun();
    for (const run of [checkpointed, unwatched]) {
      await runs.insert(run);
      const claimed = await runs.claim(run.id, LEASE_MS);
      await runs.checkpoint(run.id, claimed!.run.leaseToken, LEASE_MS, [], {
        status: 'errored',
        error: 'no',
      });
    }
    const inline = newRun({ errorWorkflowId: 'wf-2' });
    await runs.insertStarted(inline, LEASE_MS, [triggerStepOf(inline)], { status: 'complete', reply: 'ok' });
    const cancelled = newRun({ errorWorkflowId: 'wf-2' });
    await runs.insert(cancelled);
    await control.cancel('org-1', cancelled.id, 'Cancelled.', false, caller);
    const waiting = newRun({ errorWorkflowId: 'wf-2' });
    await runs.insert(waiting);
    const held = await runs.claim(waiting.id, LEASE_MS);
    await runs.checkpoint(waiting.id, held!.run.leaseToken, LEASE_MS, [], {
      status: 'waiting',
      wakeAt: new Date(Date.now() + 60_000),
    });

    expect(await outbox()).toEqual([
      { run_id: checkpointed.id, status: 'errored' },
      { run_id: inline.id, status: 'complete' },
      { run_id: cancelled.id, status: 'terminated' },
    ]);
  });

  it('calls every handler with the ended run, and retries only the one that failed until it succeeds', async () => {
    const run = newRun({ errorWorkflowId: 'wf-2' });
    await runs.insertStarted(run, LEASE_MS, [triggerStepOf(run)], { status: 'errored', error: 'broke' });
    const steady = new CountingHandler('steady');
    const flaky = new CountingHandler('flaky', 1);
    const endings = relay([steady, flaky]);

    expect(await endings.drain()).toBe(1);
    expect(steady.calls).toHaveLength(1);
    expect(steady.calls[0]).toMatchObject({ status: 'errored', attempt: 1 });
    expect(steady.calls[0]?.run.run).toMatchObject({ id: run.id, error: 'broke' });
    expect(flaky.calls).toHaveLength(1);
    // Not due again yet: the retry waits.
    expect(await endings.drain()).toBe(0);
    expect(
      await db.selectFrom('runner.run_endings').select(['attempts', 'handled', 'last_error']).execute(),
    ).toEqual([{ attempts: 1, handled: ['steady'], last_error: 'flaky: flaky is down' }]);

    await dueNow();
    expect(await endings.drain()).toBe(1);
    expect(steady.calls).toHaveLength(1);
    expect(flaky.calls.map((call) => call.attempt)).toEqual([1, 2]);
    expect(await outbox()).toEqual([]);
  });

  it('gives an ending up once its attempts are spent', async () => {
    const run = newRun({ notifications: [{ endpointId: 'n' }] });
    await runs.insertStarted(run, LEASE_MS, [triggerStepOf(run)], { status: 'errored', error: 'broke' });
    const down = new CountingHandler('down', 100);
    const endings = relay([down], 2);
    await endings.drain();
    await dueNow();
    await endings.drain();
    expect(down.calls).toHaveLength(2);
    expect(await outbox()).toEqual([]);
  });

  it('lets another replica take an ending its claimer never finished, once the claim runs out', async () => {
    const run = newRun({ errorWorkflowId: 'wf-2' });
    await runs.insertStarted(run, LEASE_MS, [triggerStepOf(run)], { status: 'errored', error: 'broke' });
    expect(await endingRows.claim(10, 60_000)).toHaveLength(1);
    expect(await endingRows.claim(10, 60_000)).toHaveLength(0);
    await dueNow();
    const handler = new CountingHandler('later');
    expect(await relay([handler]).drain()).toBe(1);
    expect(handler.calls.map((call) => call.attempt)).toEqual([2]);
  });
});
