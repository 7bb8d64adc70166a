import { RUN_STATUSES } from '#contracts';

import { isDecidable } from './decidable.util.js';

describe('isDecidable', () => {
  it('takes decisions while the run goes on or is paused, and none once it ended or rolls back', () => {
    expect(RUN_STATUSES.filter(isDecidable)).toEqual([
      'queued',
      'running',
      'paused',
      'waiting',
      'waitingForPause',
    ]);
  });
});
