/** Whether a registered replica may receive databases (`active`) or is being emptied (`leaving`). */
export type ShardState = 'active' | 'leaving';

/** A replica as the registry sees it, with the number of databases it holds. */
export interface ShardLoad {
  shard: number;
  state: ShardState;
  /** Its heartbeat is recent: it can take requests and files. */
  live: boolean;
  databases: number;
}

export interface PlannedMove {
  databaseId: string;
  from: number;
  to: number;
}

const byLoad = (a: { shard: number; databases: number }, b: { shard: number; databases: number }) =>
  a.databases - b.databases || a.shard - b.shard;

/** Shards that may receive databases: registered active, and heard from recently. */
function targetsOf(loads: readonly ShardLoad[]): Array<{ shard: number; databases: number }> {
  return loads
    .filter((load) => load.state === 'active' && load.live)
    .map(({ shard, databases }) => ({ shard, databases }));
}

/** Where a new database goes: the live active shard holding the fewest, the lowest number on a tie. */
export function leastLoaded(loads: readonly ShardLoad[]): number | undefined {
  return targetsOf(loads).sort(byLoad)[0]?.shard;
}

/**
 * Moves that empty `shard`: each of its databases goes to the live active shard holding the fewest
 * at that point, so a drain spreads them rather than piling them on one replica.
 */
export function planDrain(
  loads: readonly ShardLoad[],
  shard: number,
  databaseIds: readonly string[],
): PlannedMove[] {
  const targets = targetsOf(loads).filter((target) => target.shard !== shard);
  if (targets.length === 0) return [];
  return databaseIds.flatMap((databaseId) => {
    const target = targets.sort(byLoad)[0];
    if (!target) return [];
    target.databases += 1;
    return [{ databaseId, from: shard, to: target.shard }];
  });
}

/**
 * Moves that even out the live active shards until no two differ by more than one database, moving
 * as few as that takes, always from the fullest to the emptiest. `databasesOf(shard)` lists a
 * shard's databases in the order they should go (the caller decides, e.g. smallest first).
 */
export function planRebalance(
  loads: readonly ShardLoad[],
  databasesOf: (shard: number) => readonly string[],
): PlannedMove[] {
  const shards = targetsOf(loads);
  const queues = new Map(shards.map((load) => [load.shard, [...databasesOf(load.shard)]]));
  const moves: PlannedMove[] = [];
  for (;;) {
    shards.sort(byLoad);
    const emptiest = shards[0];
    const fullest = shards[shards.length - 1];
    if (!emptiest || !fullest || fullest.databases - emptiest.databases <= 1) return moves;
    const databaseId = queues.get(fullest.shard)?.shift();
    // The counts come from a query and the lists from another: a database deleted between the two.
    if (databaseId === undefined) {
      fullest.databases -= 1;
      continue;
    }
    moves.push({ databaseId, from: fullest.shard, to: emptiest.shard });
    fullest.databases -= 1;
    emptiest.databases += 1;
  }
}
