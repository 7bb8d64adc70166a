import { randomBytes } from 'node:crypto';

import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { CredentialCipher } from '../connections/credential-cipher.js';
import { eventsDataSource } from '../events.data-source.js';
import type { DB } from '../events.tables.js';
import type { Binding } from '../subscriptions/binding.mapper.js';
import { BindingRepository } from '../subscriptions/binding.repository.js';
import { AppEventRepository } from './app-event.repository.js';
import { EventOutcomeRepository } from './event-outcome.repository.js';

/** What a fan-out records of an event, against a real Postgres database of its own. */
const database = scratchDatabase('fm_events_outcomes_spec');
const cipher = CredentialCipher.fromEnvironment(randomBytes(32).toString('base64'));

describe('EventOutcomeRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let events: AppEventRepository;
  let outcomes: EventOutcomeRepository;
  let bindings: BindingRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(eventsDataSource(database.url, cipher));
    dataSource = new DataSource(
      dataSourceOptions({ ...eventsDataSource(database.url, cipher), poolSize: 2 }),
    );
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    events = new AppEventRepository(db);
    outcomes = new EventOutcomeRepository(db);
    bindings = new BindingRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  async function stored(connectionId = newId()): Promise<string> {
    const id = newId();
    const inserted = await events.insert({
      id,
      organizationId: 'org-1',
      connectionId,
      trigger: 'webhook/received',
      deliveryId: `delivery-${id}`,
      payload: '{"kind":"a"}',
      firedAt: new Date(),
    });
    expect(inserted).toBe(true);
    return id;
  }

  const finished = async (eventId: string) =>
    (
      await db
        .selectFrom('events.app_events')
        .select('fanned_out_at')
        .where('id', '=', eventId)
        .executeTakeFirstOrThrow()
    ).fanned_out_at !== null;

  it('records the first fan-out once, keeps a started run, and finishes the event when nothing is pending', async () => {
    const eventId = await stored();
    expect(
      await outcomes.recordFirstFanOut(eventId, 'org-1', [
        { workflowId: 'wf-1', triggerNodeId: 'a', outcome: 'started', runId: 'run-1' },
        { workflowId: 'wf-1', triggerNodeId: 'b', outcome: null },
      ]),
    ).toBe(true);
    expect(await outcomes.recordFirstFanOut(eventId, 'org-1', [])).toBe(false);
    expect((await outcomes.pendingOutcomes(eventId)).map((outcome) => outcome.triggerNodeId)).toEqual(['b']);
    expect(await finished(eventId)).toBe(false);

    await outcomes.recordDecided(eventId, 'org-1', [
      { workflowId: 'wf-1', triggerNodeId: 'a', outcome: 'error', error: 'again' },
      { workflowId: 'wf-1', triggerNodeId: 'b', outcome: 'no_listener' },
    ]);
    expect(await outcomes.outcomeOf(eventId, 'wf-1', 'a')).toMatchObject({
      outcome: 'started',
      runId: 'run-1',
    });
    expect(await outcomes.outcomeOf(eventId, 'wf-1', 'b')).toMatchObject({ outcome: 'no_listener' });
    expect(await outcomes.pendingOutcomes(eventId)).toEqual([]);
    expect(await finished(eventId)).toBe(true);
    expect(await outcomes.reached(eventId, 'wf-1')).toBe(true);
    expect(await outcomes.reached(eventId, 'wf-2')).toBe(false);
  });

  it('finishes an event whose every listener was decided on the first fan-out', async () => {
    const eventId = await stored();
    await outcomes.recordFirstFanOut(eventId, 'org-1', [
      { workflowId: 'wf-1', triggerNodeId: 'a', outcome: 'limit_reached' },
    ]);
    expect(await finished(eventId)).toBe(true);
  });

  it('hands a fan-out the triggers bound to its connection and trigger, filters included', async () => {
    const connectionId = newId();
    const binding = (triggerNodeId: string, filter: Binding['filter']): Binding => ({
      workflowId: 'wf-bound',
      triggerNodeId,
      organizationId: 'org-1',
      connectionId,
      trigger: 'webhook/received',
      filter,
      filterKey: filter === null ? '' : JSON.stringify(filter),
      status: 'active',
      error: null,
    });
    const wanted = [binding('plain', null), binding('filtered', { kind: 'a' })];
    await bindings.lockedFor('org-1', (trx) => bindings.replace(trx, 'org-1', 'wf-bound', wanted));
    const eventId = await stored(connectionId);

    const fanOut = await events.forFanOut(eventId);
    expect(fanOut).toMatchObject({ id: eventId, connectionId, listenersResolved: false });
    expect(fanOut?.bindings).toEqual(expect.arrayContaining(wanted));
    expect(fanOut?.bindings).toHaveLength(2);
    expect(await bindings.activeCount('org-1')).toBe(2);
  });
});
