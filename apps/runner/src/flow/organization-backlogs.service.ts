import { Injectable } from '@nestjs/common';

/**
 * How long an organization whose start was held for its share counts as backlogged: its new runs go
 * through the queue behind its backlog, and the queue's jobs leave `RUNNER_INLINE_RESERVE` slots to
 * other organizations' new runs (docs/flow-control.md).
 */
const BACKLOG_MEMORY_MS = 1_000;

/**
 * The organizations this runner saw with a backlog a moment ago: one whose queued start was just
 * held for its share. Each runner learns it from the starts it accepts, which every runner gets a
 * share of, so no runner asks the database.
 */
@Injectable()
export class OrganizationBacklogs {
  private readonly until = new Map<string, number>();

  /** A start of the organization was held for its share just now. */
  saw(organizationId: string): void {
    this.until.set(organizationId, Date.now() + BACKLOG_MEMORY_MS);
  }

  has(organizationId: string): boolean {
    const until = this.until.get(organizationId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.until.delete(organizationId);
    return false;
  }

  /** Some organization has a backlog: only then are slots kept from the queue's jobs. */
  any(): boolean {
    const now = Date.now();
    for (const [organizationId, until] of this.until) {
      if (until > now) return true;
      this.until.delete(organizationId);
    }
    return false;
  }
}
