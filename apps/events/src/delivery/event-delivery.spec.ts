import { STARTS_AT_ONCE_MAX } from '#contracts';

import { startRequestsOf } from './event-delivery.service.js';

describe('startRequestsOf', () => {
  const indexes = (count: number) => Array.from({ length: count }, (_, index) => index);

  it('sends up to the most starts a request takes, in order', () => {
    const requests = startRequestsOf(indexes(STARTS_AT_ONCE_MAX * 2 + 1), 100);
    expect(requests.map((request) => request.length)).toEqual([STARTS_AT_ONCE_MAX, STARTS_AT_ONCE_MAX, 1]);
    expect(requests.flat()).toEqual(indexes(STARTS_AT_ONCE_MAX * 2 + 1));
  });

  it('sends fewer copies of a large payload to a request, and one at least', () => {
    expect(startRequestsOf(indexes(5), 256 * 1024).map((request) => request.length)).toEqual([2, 2, 1]);
    expect(startRequestsOf(indexes(2), 4 * 1024 * 1024)).toEqual([[0], [1]]);
    expect(startRequestsOf([], 10)).toEqual([]);
  });
});
