import type { StepContext } from './node-executor.js';
import { DelayExecutor } from './delay.executor.js';

const startedAt = new Date('2025-01-01T00:00:00.000Z');

function context(properties: Record<string, unknown>, now: Date, state: unknown = null): StepContext {
  return {
    properties,
    startedAt,
    state,
    now: () => now,
    render: (template: string) => template.replace('{{trigger.at}}', '2025-01-01T00:10:00.000Z'),
  } as unknown as StepContext;
}

describe('DelayExecutor', () => {
  const delay = new DelayExecutor();

  it('waits from when the step started until seconds have passed', async () => {
    const early = delay.prepare(context({ seconds: 60 }, new Date('2025-01-01T00:00:30.000Z')));
    expect(early.input).toBe('2025-01-01T00:01:00.000Z');
    expect(await early.run()).toEqual({
      status: 'waiting',
      until: new Date('2025-01-01T00:01:00.000Z'),
      state: { until: '2025-01-01T00:01:00.000Z' },
    });
  });

  it('keeps its due time when woken, and completes once it has passed', async () => {
    const state = { until: '2025-01-01T00:01:00.000Z' };
    // Even with different properties (a changed draft), the kept due time decides.
    const tooEarly = delay.prepare(context({ seconds: 1 }, new Date('2025-01-01T00:00:59.000Z'), state));
    expect((await tooEarly.run()).status).toBe('waiting');
    const due = delay.prepare(context({ seconds: 60 }, new Date('2025-01-01T00:01:00.500Z'), state));
    expect(await due.run()).toEqual({ status: 'done', output: { until: '2025-01-01T00:01:00.500Z' } });
  });

  it('reads until from a template and refuses a time it cannot read', async () => {
    const until = delay.prepare(context({ until: '{{trigger.at}}' }, startedAt));
    expect(until.input).toBe('2025-01-01T00:10:00.000Z');
    expect(() => delay.prepare(context({ until: 'tomorrow' }, startedAt))).toThrow(/not an ISO 8601 time/);
  });
});
