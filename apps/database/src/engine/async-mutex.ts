export class LockTimeoutError extends Error {
  constructor() {
    super('Timed out waiting for the lock');
    this.name = 'LockTimeoutError';
  }
}

/** A first-come, first-served lock whose waiters can give up after a while. */
export class AsyncMutex {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  /** Resolves with the function that releases the lock. */
  acquire(timeoutMs = Number.POSITIVE_INFINITY): Promise<() => void> {
    if (!this.held) {
      this.held = true;
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

  /** Runs `work` holding the lock. */
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
      const next = this.waiters.shift();
      if (next) next();
      else this.held = false;
    };
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
