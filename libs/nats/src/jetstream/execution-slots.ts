/**
 * The number of jobs a process works on at once, shared by everything that starts work: a job
 * worker pulls only as many jobs as there are free slots, and other paths (a service executing
 * something it accepted itself) take a slot only when one is free.
 */
export class ExecutionSlots {
  private active = 0;
  private waiters: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error('ExecutionSlots needs a limit of at least 1');
  }

  get free(): number {
    return Math.max(0, this.limit - this.active);
  }

  get busy(): number {
    return this.active;
  }

  /** Takes a slot if one is free. */
  tryTake(): boolean {
    if (this.active >= this.limit) return false;
    this.active += 1;
    return true;
  }

  /**
   * Takes a slot even past the limit: a job JetStream already delivered is worked on rather than
   * bounced. It happens only when another path took the slots a pull had asked for.
   */
  take(): void {
    this.active += 1;
  }

  release(): void {
    this.active = Math.max(0, this.active - 1);
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }

  /**
   * Resolves once more than `kept` slots are free (at once when they are), or after `timeoutMs` when
   * given; then look again.
   */
  whenFree(kept = 0, timeoutMs?: number): Promise<void> {
    if (this.free > kept) return Promise.resolve();
    return new Promise((resolve) => {
      if (timeoutMs === undefined) {
        this.waiters.push(resolve);
        return;
      }
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        resolve();
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }

  /** Wakes everything waiting for a slot, e.g. to let it notice a shutdown. */
  wakeAll(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }
}
