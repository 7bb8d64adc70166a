export class LockTimeoutError extends Error {
  constructor() {
    super('Timed out waiting for the lock');
    this.name = 'LockTimeoutError';
  }
}

/** A first-come, first-served semaphore whose waiters can give up after a while. */
export class AsyncSemaphore {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly permits: number) {
    this.free = permits;
  }

  /** Permits nobody holds. */
  get available(): number {
    return this.free;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** No permit is taken and nobody waits. */
  get idle(): boolean {
    return this.free === this.permits && this.waiters.length === 0;
  }

  /** Resolves with the function that gives the permit back; rejects with LockTimeoutError. */
  acquire(timeoutMs = Number.POSITIVE_INFINITY): Promise<() => void> {
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (timer) clearTimeout(timer);
        resolve(this.releaser());
      };
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () => {
              const index = this.waiters.indexOf(waiter);
              if (index >= 0) this.waiters.splice(index, 1);
              reject(new LockTimeoutError());
            },
            Math.max(0, timeoutMs),
          )
        : undefined;
      this.waiters.push(waiter);
    });
  }

  /** Runs `work` holding a permit. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The permit passes straight to the first waiter, so nobody can overtake it.
      const next = this.waiters.shift();
      if (next) next();
      else this.free += 1;
    };
  }
}

/** A first-come, first-served lock whose waiters can give up after a while. */
export class AsyncMutex extends AsyncSemaphore {
  constructor() {
    super(1);
  }
}

/** One AsyncMutex per key, dropped when nobody holds or waits for it. */
export class KeyedMutex {
  private readonly locks = new Map<string, { mutex: AsyncMutex; users: number }>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let lock = this.locks.get(key);
    if (!lock) {
      lock = { mutex: new AsyncMutex(), users: 0 };
      this.locks.set(key, lock);
    }
    lock.users += 1;
    try {
      return await lock.mutex.run(work);
    } finally {
      lock.users -= 1;
      if (lock.users === 0) this.locks.delete(key);
    }
  }
}
