import { randomUUID } from 'node:crypto';

import { DomainException } from '#common';
import { type RunCancelledEvent, RunnerSubjects } from '#contracts';
import type { NatsConnection } from '@nats-io/transport-node';

import { connectNats } from './connection.js';
import { publishEvent } from './events.js';
import { RunCancellations } from './run-cancellations.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Work that runs until its signal aborts, then fails with the signal's reason. */
const untilCancelled = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });

/** Starts `work` and answers its signal, with the promise of its end. */
function start(cancellations: RunCancellations, runId: string | undefined, organizationId: string) {
  let signal!: AbortSignal;
  const ended = cancellations.during(runId, organizationId, (given) => {
    signal = given;
    return untilCancelled(given);
  });
  const outcome = ended.then(
    () => 'done' as const,
    (error: unknown) => error,
  );
  return { signal, outcome };
}

/** The cancels of a real NATS server, as the runner sends them, heard by the class every step service uses. */
describe('RunCancellations', () => {
  let listening: NatsConnection;
  let sending: NatsConnection;
  let cancellations: RunCancellations;
  const warnings: unknown[] = [];

  const cancel = (event: RunCancelledEvent) =>
    publishEvent(sending, RunnerSubjects.runCancelled, event, event.runId);

  beforeAll(async () => {
    listening = await connectNats({ url: NATS_URL, identity: 'events' }, 'run-cancellations-spec');
    sending = await connectNats({ url: NATS_URL, identity: 'runner' }, 'run-cancellations-spec-runner');
    cancellations = new RunCancellations(listening, { warn: (fields: unknown) => warnings.push(fields) });
    // The subscription is in place on the server before anything is sent.
    await listening.flush();
  });

  afterAll(async () => {
    cancellations?.onModuleDestroy();
    await listening?.close();
    await sending?.close();
  });

  it("stops the cancelled run's work of the cancel's organization only, with the cancel's message", async () => {
    const runId = randomUUID();
    const mine = start(cancellations, runId, 'org-a');
    const alsoMine = start(cancellations, runId, 'org-a');
    const otherOrganization = start(cancellations, runId, 'org-b');
    const otherRunId = randomUUID();
    const otherRun = start(cancellations, otherRunId, 'org-a');
    expect(cancellations.runsInFlight).toBe(2);

    cancel({ runId, organizationId: 'org-a', message: 'Cancelled by ada@example.com: wrong input.' });

    const [error, alsoError] = await Promise.all([mine.outcome, alsoMine.outcome]);
    expect(error).toBeInstanceOf(DomainException);
    expect({ code: (error as DomainException).code, message: (error as DomainException).message }).toEqual({
      code: 'run_not_active',
      message: 'Cancelled by ada@example.com: wrong input.',
    });
    expect(alsoError).toBe(error);
    // Both were told in the same callback: had the other organization's work been stopped, it would be by now.
    expect([otherOrganization.signal.aborted, otherRun.signal.aborted]).toEqual([false, false]);

    cancel({ runId, organizationId: 'org-b', message: 'b' });
    expect(((await otherOrganization.outcome) as Error).message).toBe('b');
    // Each run's entry went with its last work.
    expect(cancellations.runsInFlight).toBe(1);
    cancel({ runId: otherRunId, organizationId: 'org-a', message: 'c' });
    await otherRun.outcome;
    expect(cancellations.runsInFlight).toBe(0);
  });

  it('stops work that arrives after its run was cancelled, as it starts, for that organization only', async () => {
    const runId = randomUUID();
    cancel({ runId, organizationId: 'org-a', message: 'Cancelled before the step arrived.' });
    // A later notice of another run is heard after this one: once it is, the first was too.
    const marker = randomUUID();
    const markerWork = start(cancellations, marker, 'org-a');
    cancel({ runId: marker, organizationId: 'org-a', message: 'marker' });
    await markerWork.outcome;

    const late = start(cancellations, runId, 'org-a');
    // It never started.
    expect(late.signal).toBeUndefined();
    expect(((await late.outcome) as Error).message).toBe('Cancelled before the step arrived.');
    const otherOrganization = start(cancellations, runId, 'org-b');
    expect(otherOrganization.signal.aborted).toBe(false);
    cancel({ runId, organizationId: 'org-b', message: 'b' });
    await otherOrganization.outcome;
  });

  it('ignores notices that are not valid, and goes on hearing the valid ones', async () => {
    const runId = randomUUID();
    const work = start(cancellations, runId, 'org-a');
    const subject = `${RunnerSubjects.runCancelled.name}.${runId}`;
    const before = warnings.length;
    sending.publish(subject, 'not json');
    for (const invalid of [
      [],
      null,
      42,
      {},
      { runId, organizationId: 'org-a' },
      { runId, organizationId: 7, message: 'x' },
      { runId: '', organizationId: 'org-a', message: 'x' },
      { runId: { $ne: null }, organizationId: 'org-a', message: 'x' },
    ]) {
      sending.publish(subject, JSON.stringify(invalid));
    }
    cancel({ runId, organizationId: 'org-a', message: 'the valid one' });

    expect(((await work.outcome) as Error).message).toBe('the valid one');
    // In order from one sender: every invalid notice was heard and dropped before the valid one.
    expect(warnings.length - before).toBe(8);
  });

  it('tells the listeners of every cancel, and a listener that fails stops neither the others nor the process', async () => {
    const logged: string[] = [];
    const own = new RunCancellations(listening, {
      warn: (_fields: unknown, message?: string) => logged.push(message ?? ''),
    });
    try {
      const runId = randomUUID();
      own.onCancel(() => {
        throw new Error('a listener that throws');
      });
      own.onCancel(() => Promise.reject(new Error('a listener that rejects')));
      const told = new Promise<RunCancelledEvent>((resolve) => own.onCancel(resolve));
      await listening.flush();
      cancel({ runId, organizationId: 'org-a', message: 'no work here' });
      expect(await told).toEqual({ runId, organizationId: 'org-a', message: 'no work here' });
      // Everything the listeners started has settled once the microtasks ran.
      await new Promise(setImmediate);
      expect(logged).toEqual(['a run-cancelled listener failed', 'a run-cancelled listener failed']);
    } finally {
      own.onModuleDestroy();
    }
  });

  it('gives work of no run a signal nothing aborts, and keeps no entry for it', async () => {
    let seen!: AbortSignal;
    const answer = await cancellations.during(undefined, 'org-a', (signal) => {
      seen = signal;
      expect(cancellations.runsInFlight).toBe(0);
      return Promise.resolve('done');
    });
    expect({ answer, aborted: seen.aborted }).toEqual({ answer: 'done', aborted: false });
  });
});
