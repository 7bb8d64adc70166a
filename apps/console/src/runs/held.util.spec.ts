import { describe, expect, it } from '@jest/globals';

import { heldLine } from './held.util';

describe('a held run on its page', () => {
  it('names the gate and the key it waits under', () => {
    expect(heldLine({ status: 'queued', heldBy: 'concurrency', heldKey: 'abc' })).toBe(
      'Waiting: concurrency limit (key “abc”). It starts when a run counted under the same key ends, highest priority first.',
    );
    expect(heldLine({ status: 'queued', heldBy: 'throttle', heldKey: '' })).toMatch(
      /^Waiting: throttle limit\. /,
    );
    expect(heldLine({ status: 'queued', heldBy: 'debounce', heldKey: 'x' })).toMatch(
      /^Waiting: debounce period \(key “x”\)\. /,
    );
    expect(heldLine({ status: 'queued', heldBy: 'share' })).toMatch(
      /^Waiting: its organization's share of the runners\. /,
    );
  });

  it('says nothing of a run nothing holds, or one that has moved on', () => {
    expect(heldLine({ status: 'queued' })).toBeNull();
    expect(heldLine({ status: 'running', heldBy: 'concurrency', heldKey: 'abc' })).toBeNull();
  });
});
