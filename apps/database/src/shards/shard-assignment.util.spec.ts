import { leastLoaded, planDrain, planRebalance, type ShardLoad } from './shard-assignment.util.js';

const load = (shard: number, databases: number, extra: Partial<ShardLoad> = {}): ShardLoad => ({
  shard,
  state: 'active',
  live: true,
  databases,
  ...extra,
});

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('leastLoaded', () => {
  it('picks the live active shard holding the fewest databases, the lowest number on a tie', () => {
    expect(leastLoaded([load(0, 5), load(1, 3), load(2, 4)])).toBe(1);
    expect(leastLoaded([load(2, 3), load(1, 3), load(0, 4)])).toBe(1);
  });

  it('never picks a leaving shard or one whose heartbeat stopped', () => {
    expect(leastLoaded([load(0, 5), load(1, 0, { state: 'leaving' }), load(2, 0, { live: false })])).toBe(0);
  });

  it('has no answer when no shard can take databases', () => {
    expect(leastLoaded([])).toBeUndefined();
    expect(leastLoaded([load(0, 0, { live: false })])).toBeUndefined();
  });
});

describe('planDrain', () => {
  it('moves every database of the shard, spreading them over the others by load', () => {
    const moves = planDrain([load(0, 1), load(1, 3), load(2, 4)], 2, ids('d', 4));
    expect(moves).toEqual([
      { databaseId: 'd0', from: 2, to: 0 },
      { databaseId: 'd1', from: 2, to: 0 },
      { databaseId: 'd2', from: 2, to: 0 },
      { databaseId: 'd3', from: 2, to: 1 },
    ]);
    const even = planDrain([load(0, 0), load(1, 0), load(2, 3)], 2, ids('d', 3));
    expect(even.map((move) => move.to)).toEqual([0, 1, 0]);
  });

  it('plans nothing when no other shard could take them', () => {
    expect(planDrain([load(0, 2)], 0, ids('d', 2))).toEqual([]);
    expect(planDrain([load(0, 2), load(1, 0, { live: false })], 0, ids('d', 2))).toEqual([]);
  });
});

describe('planRebalance', () => {
  it('moves from the fullest to the emptiest until no two differ by more than one', () => {
    const lists: Record<number, string[]> = { 0: ids('a', 7), 1: ids('b', 1) };
    const moves = planRebalance([load(0, 7), load(1, 1), load(2, 0)], (shard) => lists[shard] ?? []);
    expect(moves).toEqual([
      { databaseId: 'a0', from: 0, to: 2 },
      { databaseId: 'a1', from: 0, to: 1 },
      { databaseId: 'a2', from: 0, to: 2 },
      { databaseId: 'a3', from: 0, to: 1 },
    ]);
  });

  it('leaves a balanced set alone and ignores leaving or silent shards', () => {
    expect(planRebalance([load(0, 3), load(1, 2)], () => ids('x', 3))).toEqual([]);
    expect(
      planRebalance([load(0, 4), load(1, 0, { state: 'leaving' }), load(2, 0, { live: false })], () =>
        ids('x', 4),
      ),
    ).toEqual([]);
  });

  it('stops when a list runs out before its count (databases deleted meanwhile)', () => {
    expect(planRebalance([load(0, 6), load(1, 0)], (shard) => (shard === 0 ? ['only'] : []))).toEqual([
      { databaseId: 'only', from: 0, to: 1 },
    ]);
  });
});
