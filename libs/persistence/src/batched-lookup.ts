import DataLoader from 'dataloader';

export interface BatchedLookupOptions {
  /** Statements in flight at once; look-ups made while they all are go together in the next. */
  concurrency: number;
  /** Keys one statement may look up. */
  maxBatchSize: number;
}

/**
 * Single-row reads that arrive together share one statement. `lookup` gets the keys of a batch and
 * answers a value or null for each, in their order. While `concurrency` statements are in flight,
 * new look-ups wait and leave together once one returns: an idle service answers each read at once,
 * a busy one trades many round trips (a socket write, a Postgres parse of the protocol, an executor
 * start-up each) for one. Nothing is cached: a look-up is answered by a statement that began after
 * it was asked, so it sees every write committed before it was asked, as a read of its own would.
 * A batch may name a key twice.
 */
export class BatchedLookup<K, V> {
  private readonly loader: DataLoader<K, V | null>;
  private inFlight = 0;
  private readonly queued: Array<() => void> = [];

  constructor(lookup: (keys: readonly K[]) => Promise<Array<V | null>>, options: BatchedLookupOptions) {
    this.loader = new DataLoader<K, V | null>(
      async (keys) => {
        try {
          return await lookup(keys);
        } finally {
          this.inFlight -= 1;
          this.queued.shift()?.();
        }
      },
      {
        cache: false,
        maxBatchSize: options.maxBatchSize,
        batchScheduleFn: (dispatch) => {
          const start = () => {
            this.inFlight += 1;
            dispatch();
          };
          // Within the current turn either way, so the look-ups of one burst of messages share it.
          if (this.inFlight < options.concurrency) process.nextTick(start);
          else this.queued.push(start);
        },
      },
    );
  }

  load(key: K): Promise<V | null> {
    return this.loader.load(key);
  }
}
