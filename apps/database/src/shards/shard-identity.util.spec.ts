import { shardOf } from './shard-identity.util.js';

describe('shardOf', () => {
  it('takes DATABASE_SHARD first, whatever the host is called', () => {
    expect(shardOf(3, 'database-1')).toBe(3);
    expect(shardOf(0, 'database-5')).toBe(0);
  });

  it('reads the ordinal of a StatefulSet pod named database-<k>', () => {
    expect(shardOf(undefined, 'database-0')).toBe(0);
    expect(shardOf(undefined, 'database-2')).toBe(2);
    expect(shardOf(undefined, 'database-17')).toBe(17);
  });

  it('is 0 on any other host, so one replica or the all-in-one process needs no setting', () => {
    expect(shardOf(undefined, undefined)).toBe(0);
    expect(shardOf(undefined, '')).toBe(0);
    expect(shardOf(undefined, 'flowmesh-7d9f8c6b5-x2k4q')).toBe(0);
    expect(shardOf(undefined, 'database')).toBe(0);
    expect(shardOf(undefined, 'database-1a')).toBe(0);
    expect(shardOf(undefined, 'my-database-1')).toBe(0);
    expect(shardOf(undefined, 'database-1000')).toBe(0);
  });
});
