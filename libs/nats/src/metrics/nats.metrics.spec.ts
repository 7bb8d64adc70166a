import { DomainException } from '#common';
import { RunnerSubjects } from '#contracts';
import { register } from 'prom-client';

import { NoResponders } from '../rpc.client.js';
import { observeHandled, observeRequest, outcomeOf } from './nats.metrics.js';

async function valueOf(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = await register.getSingleMetric(name)?.get();
  return metric?.values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => String(value.labels[key]) === wanted),
  )?.value;
}

describe('NATS request metrics', () => {
  const subject = RunnerSubjects.runsStart.bare;

  it('labels by the catalog subject without any prefix: a fixed name, no id in it', () => {
    expect(subject).toBe('runner.runs.start');
    expect(RunnerSubjects.runsStart.name.endsWith(subject)).toBe(true);
  });

  it('keeps outcomes to the contract error codes', () => {
    expect(outcomeOf('not_found')).toBe('not_found');
    expect(outcomeOf('service_unavailable')).toBe('service_unavailable');
    expect(outcomeOf('something a peer made up')).toBe('internal');
    expect(outcomeOf(undefined)).toBe('internal');
  });

  it('counts a sent request by its reply or its failure, and leaves what it resolves or rejects with alone', async () => {
    const reply = { ok: true as const, data: { id: 'r1' } };
    await expect(observeRequest(subject, Promise.resolve(reply))).resolves.toBe(reply);
    await observeRequest(
      subject,
      Promise.resolve({ ok: false as const, error: { status: 404, code: 'not_found', message: 'no' } }),
    );
    const unserved = new NoResponders(subject);
    await expect(observeRequest(subject, Promise.reject(unserved))).rejects.toBe(unserved);
    await expect(observeRequest(subject, Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const counted = (outcome: string) => valueOf('flowmesh_nats_client_requests_total', { subject, outcome });
    expect(await counted('ok')).toBe(1);
    expect(await counted('not_found')).toBe(1);
    expect(await counted('service_unavailable')).toBe(1);
    expect(await counted('internal')).toBe(1);
    const durations = await register.getSingleMetric('flowmesh_nats_client_request_duration_seconds')?.get();
    expect(
      durations?.values.find((value) => (value as { metricName?: string }).metricName?.endsWith('_count'))
        ?.value,
    ).toBe(4);
  });

  it('counts a handled request as ok or by the code of the failure it answered', async () => {
    const began = performance.now();
    observeHandled(subject, began);
    observeHandled(subject, began, new DomainException('plan_limit_reached', 'limit').code);
    expect(await valueOf('flowmesh_nats_handled_requests_total', { subject, outcome: 'ok' })).toBe(1);
    expect(
      await valueOf('flowmesh_nats_handled_requests_total', { subject, outcome: 'plan_limit_reached' }),
    ).toBe(1);
  });
});
