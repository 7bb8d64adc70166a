import { describe, expect, it } from '@jest/globals';

import { gateOf, numberOf, withGateField } from './flow-control.util';

describe('flow control in the editor', () => {
  it('reads a number input, empty as none', () => {
    expect(numberOf('12')).toBe(12);
    expect(numberOf('')).toBeUndefined();
    expect(numberOf('  ')).toBeUndefined();
  });

  it('changes one field of a gate, and drops the gate once every field is empty', () => {
    const withLimit = withGateField(undefined, 'limit', 1);
    expect(withLimit).toEqual({ limit: 1 });
    const withKey = withGateField(withLimit, 'key', '{{trigger.k}}');
    expect(withKey).toEqual({ limit: 1, key: '{{trigger.k}}' });
    expect(withGateField(withKey, 'key', '')).toEqual({ limit: 1 });
    // What was typed first is kept while the rest is filled in.
    expect(withGateField(withKey, 'limit', undefined)).toEqual({ key: '{{trigger.k}}' });
    expect(withGateField({ limit: 1 }, 'limit', undefined)).toBeUndefined();
  });

  it('reads a gate from settings saved elsewhere', () => {
    expect(gateOf({ throttle: { limit: 3, periodSeconds: 60 } }, 'throttle')).toEqual({
      limit: 3,
      periodSeconds: 60,
    });
    expect(gateOf({}, 'debounce')).toEqual({});
    expect(gateOf({ concurrency: 'many' } as never, 'concurrency')).toEqual({});
  });
});
