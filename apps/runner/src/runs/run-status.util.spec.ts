import { visibleStatus } from './run-status.util.js';

describe('visibleStatus', () => {
  const now = new Date('2025-03-31T12:00:00.000Z');

  it('shows the stored status for 30 days', () => {
    expect(visibleStatus('complete', new Date('2025-03-01T12:00:00.000Z'), now)).toBe('complete');
    expect(visibleStatus('running', now, now)).toBe('running');
  });

  it('reads unknown after 30 days', () => {
    expect(visibleStatus('complete', new Date('2025-03-01T11:59:59.999Z'), now)).toBe('unknown');
  });
});
