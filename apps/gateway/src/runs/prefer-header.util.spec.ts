import { parsePrefer, preferredWaitSeconds } from './prefer-header.util.js';

describe('Prefer header (RFC 7240)', () => {
  it.each([
    ['wait=10', 10],
    ['WAIT=10', 10],
    ['wait = 10', 10],
    ['wait="10"', 10],
    ['respond-async, wait=5', 5],
    ['handling=lenient; foo=bar, wait=7; x="a,b"', 7],
    ['wait=0', 0],
    ['wait=61', 60],
    ['wait=99999999999999999999999', 60],
    ['return=minimal,wait=3', 3],
  ])('reads %j as a wait of %j seconds', (header, seconds) => {
    expect(preferredWaitSeconds(header)).toBe(seconds);
  });

  it.each([
    [undefined],
    [''],
    ['respond-async'],
    ['wait'],
    ['wait='],
    ['wait=-1'],
    ['wait=1.5'],
    ['wait=abc'],
    ['wait=1e1'],
    ['x-wait=5'],
    ['foo="wait=5"'],
  ])('ignores %j', (header) => {
    expect(preferredWaitSeconds(header)).toBeUndefined();
  });

  it('keeps the first of a preference named twice, across headers too', () => {
    expect(preferredWaitSeconds('wait=2, wait=30')).toBe(2);
    expect(preferredWaitSeconds(['respond-async', 'wait=4', 'wait=9'])).toBe(4);
    // The first `wait` is malformed: it is still the one considered, so nothing is honoured.
    expect(preferredWaitSeconds('wait=soon, wait=9')).toBeUndefined();
  });

  it('splits preferences and parameters only outside quoted strings, and undoes escapes', () => {
    expect(parsePrefer('a="x,y;z", b, c=d; p=1, e="q\\"r"')).toEqual(
      new Map([
        ['a', 'x,y;z'],
        ['b', ''],
        ['c', 'd'],
        ['e', 'q"r'],
      ]),
    );
  });
});
