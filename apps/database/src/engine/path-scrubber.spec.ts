import { PathScrubber } from './path-scrubber.js';

describe('PathScrubber', () => {
  const scrubber = new PathScrubber('/srv/flow/data/databases', '/home/flow');

  it("drops a database's directory, which names its organization", () => {
    expect(
      scrubber.message(
        'IO Error: Could not set lock on file "/srv/flow/data/databases/org_8fK2/0b6d.duckdb": Conflicting lock',
      ),
    ).toBe('IO Error: Could not set lock on file "0b6d.duckdb": Conflicting lock');
    expect(scrubber.rows('["/srv/flow/data/databases/org_8fK2/0b6d.duckdb.tmp"]')).toBe(
      '["0b6d.duckdb.tmp"]',
    );
  });

  it('hides the data and home directories in messages', () => {
    expect(scrubber.message('no space left under /srv/flow/data/databases')).toBe(
      'no space left under <data>',
    );
    expect(scrubber.message('Cannot access directory "/home/flow/.duckdb/extensions"')).toBe(
      'Cannot access directory "~/.duckdb/extensions"',
    );
  });

  it('leaves other paths in rows alone, the home directory included', () => {
    expect(scrubber.rows('["/home/flow/notes.txt","/srv/other"]')).toBe(
      '["/home/flow/notes.txt","/srv/other"]',
    );
    expect(scrubber.message('/home/flowers')).toBe('/home/flowers');
  });

  it('does not take every slash for a home of /', () => {
    expect(new PathScrubber('/data/databases', '/').message('a/b')).toBe('a/b');
  });
});
