import type { Diagram } from '#contracts';

import { heldUntil, priorityOf, runFlowOf, UNGATED } from './run-flow.js';

const NOW = new Date('2026-11-28T10:00:00.000Z');

const withSettings = (settings: Record<string, unknown>): Diagram => ({
  nodes: [{ id: 't', data: { type: 'trigger', properties: { kind: 'api' } } }],
  edges: [],
  settings,
});

describe('runFlowOf', () => {
  it('leaves a run of a workflow without flow control ungated, with the share given', () => {
    expect(runFlowOf(withSettings({ onError: 'stop' }), '{}', NOW, 32)).toEqual({ ...UNGATED, share: 32 });
  });

  it('renders each key from the trigger and starts the run at the first gate that applies', () => {
    const flow = runFlowOf(
      withSettings({
        concurrency: { limit: 3, key: '{{trigger.customer}}' },
        throttle: { limit: 10, periodSeconds: 60, key: 'region-{{trigger.region}}' },
        debounce: { periodSeconds: 5 },
        priority: '{{trigger.rank}}',
      }),
      '{"customer":"c-1","region":"eu","rank":"7"}',
      NOW,
      null,
    );
    expect(flow).toEqual({
      gate: 'debounce',
      priority: 7,
      concurrencyKey: 'c-1',
      concurrencyLimit: 3,
      throttleKey: 'region-eu',
      throttleLimit: 10,
      throttlePeriodS: 60,
      debounceKey: '',
      releaseAt: new Date('2026-11-28T10:00:05.000Z'),
      share: null,
    });
    expect(runFlowOf(withSettings({ concurrency: { limit: 1 } }), '{}', NOW, 4).gate).toBe('concurrency');
  });

  it('keeps a long key as its SHA-256, so long keys still count apart', () => {
    const settings = withSettings({ concurrency: { limit: 1, key: '{{trigger.k}}' } });
    const one = runFlowOf(settings, JSON.stringify({ k: 'a'.repeat(300) }), NOW, null).concurrencyKey;
    const other = runFlowOf(settings, JSON.stringify({ k: `${'a'.repeat(299)}b` }), NOW, null).concurrencyKey;
    expect(one).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(other).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(one).not.toBe(other);
  });
});

describe('priorityOf', () => {
  it.each([
    ['5', 5],
    [' -3 ', -3],
    ['2.9', 2],
    ['', 0],
    ['high', 0],
    ['1e12', 1_000_000],
    ['-1e12', -1_000_000],
  ])('reads %j as %d', (rendered, priority) => {
    expect(priorityOf(rendered)).toBe(priority);
  });
});

describe('heldUntil', () => {
  const DUE = new Date('2026-11-28T10:00:08.000Z');

  it('holds a run written before its time at the schedule gate, its own gates after it', () => {
    const flow = runFlowOf(withSettings({ concurrency: { limit: 2 } }), '{}', NOW, 32);
    expect(heldUntil(flow, DUE, NOW)).toEqual({ ...flow, gate: 'schedule', releaseAt: DUE });
    expect(heldUntil({ ...UNGATED, share: 32 }, DUE, NOW)).toEqual({
      ...UNGATED,
      share: 32,
      gate: 'schedule',
      releaseAt: DUE,
    });
  });

  it('counts a debounced run’s period from its due time instead', () => {
    const flow = runFlowOf(withSettings({ debounce: { periodSeconds: 5 } }), '{}', NOW, null);
    expect(heldUntil(flow, DUE, NOW)).toEqual({
      ...flow,
      gate: 'debounce',
      releaseAt: new Date('2026-11-28T10:00:13.000Z'),
    });
  });

  it('holds nothing for a time already come', () => {
    const flow = runFlowOf(withSettings({ throttle: { limit: 1, periodSeconds: 60 } }), '{}', NOW, 32);
    expect(heldUntil(flow, NOW, NOW)).toBe(flow);
    expect(heldUntil(flow, new Date(NOW.getTime() - 1_000), NOW)).toBe(flow);
  });
});
