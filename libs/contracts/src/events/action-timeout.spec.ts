import { ACTION_DEFAULT_TIMEOUT_MS, ACTION_MAX_TIMEOUT_MS, actionTimeoutMs } from './event.messages.js';

describe('actionTimeoutMs', () => {
  it("takes the action's own timeout, bounded, and the default otherwise", () => {
    expect(actionTimeoutMs({ timeoutMs: 2_500 })).toBe(2_500);
    expect(actionTimeoutMs({ timeoutMs: 10 })).toBe(100);
    expect(actionTimeoutMs({ timeoutMs: 10 * ACTION_MAX_TIMEOUT_MS })).toBe(ACTION_MAX_TIMEOUT_MS);
    for (const input of [{}, { timeoutMs: '5000' }, { timeoutMs: -1 }, { timeoutMs: Number.NaN }, null]) {
      expect(actionTimeoutMs(input)).toBe(ACTION_DEFAULT_TIMEOUT_MS);
    }
  });
});
