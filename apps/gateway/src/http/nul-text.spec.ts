import { nulCharacterPath } from './nul-text.js';

describe('nulCharacterPath', () => {
  it('finds the NUL character in a string or a key, at any depth, and says where', () => {
    expect(nulCharacterPath({ name: 'a\u0000b' })).toBe('name');
    expect(nulCharacterPath({ diagram: { nodes: [{ id: 'n' }, { data: { label: '\u0000' } }] } })).toBe(
      'diagram.nodes[1].data.label',
    );
    expect(nulCharacterPath({ ['bad\u0000key']: 1 })).toBe('bad\u0000key');
    expect(nulCharacterPath(['x', ['\u0000']])).toBe('[1][0]');
    expect(nulCharacterPath('\u0000')).toBe('');
  });

  it('passes text without it, including an escaped backslash-u written out', () => {
    expect(
      nulCharacterPath({ name: 'plain', sql: "SELECT '\\u0000'", n: 0, ok: true, none: null }),
    ).toBeUndefined();
    expect(nulCharacterPath(undefined)).toBeUndefined();
  });

  it('walks a deep value without recursion', () => {
    let deep: unknown = 'end\u0000';
    for (let index = 0; index < 100_000; index += 1) deep = [deep];
    expect(nulCharacterPath(deep)).toMatch(/^(\[0\]){100000}$/);
  });
});
