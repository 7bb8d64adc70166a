import { DomainException } from '#common';

import { AsyncSemaphore, LockTimeoutError } from '../engine/async-mutex.js';

/**
 * Per organization, at most `running` batches run on this replica at once, so one organization's
 * batches cannot take every thread and all the engine's memory; up to `waiting` more wait their
 * turn, first come first served, each until its own deadline. Past that a batch is refused at once
 * (docs/databases.md, "Bounds").
 */
export class BatchTurns {
  private readonly organizations = new Map<string, AsyncSemaphore>();

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** Resolves with the function that ends the turn. */
  async take(organizationId: string, deadline: number): Promise<() => void> {
    let turns = this.organizations.get(organizationId);
    if (!turns) {
      turns = new AsyncSemaphore(this.running);
      this.organizations.set(organizationId, turns);
    }
    if (turns.available > 0 || turns.waiting < this.waiting) {
      try {
        const release = await turns.acquire(deadline - Date.now());
        return () => {
          release();
          this.forgetIdle(organizationId, turns);
        };
      } catch (error) {
        this.forgetIdle(organizationId, turns);
        if (!(error instanceof LockTimeoutError)) throw error;
        throw new DomainException(
          'service_unavailable',
          `The organization's other batches kept this server busy until the batch's deadline (${this.running} run at once); nothing was applied. Try again.`,
        );
      }
    }
    throw new DomainException(
      'rate_limited',
      `The organization already has ${this.running} batches running and ${this.waiting} waiting on this server; nothing was applied. Try again shortly.`,
    );
  }

  private forgetIdle(organizationId: string, turns: AsyncSemaphore): void {
    if (turns.idle && this.organizations.get(organizationId) === turns)
      this.organizations.delete(organizationId);
  }
}
