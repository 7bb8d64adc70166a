import type { RequestLanes } from '#nats';

import { laneHeld, lanesEntered } from './organization-lanes.metrics.js';

interface Lane {
  running: number;
  waiting: Array<() => void>;
}

interface Seen {
  organizationId: string;
  at: number;
}

/** How long after its last request another organization still counts as being served. */
const CONTENTION_MS = 1_000;

/**
 * Bounds each organization's requests in flight while other organizations are being served: then
 * at most `limit` of its requests are in flight at once, and the rest wait their turn in the order
 * they came. An organization alone has no bound, so a busy service serving one organization loses
 * no throughput. The gateway sends its requests to the services through it, so one organization's
 * burst is worked on a few at a time while another's requests come in, and those wait behind little
 * of it in each service (docs/flow-control.md, "Fairness at the edge").
 */
export class OrganizationLanes implements RequestLanes {
  private readonly lanes = new Map<string, Lane>();
  /** The latest request's organization, and the latest request of any other organization. */
  private latest: Seen = { organizationId: '', at: -Infinity };
  private other: Seen = { organizationId: '', at: -Infinity };

  constructor(
    readonly limit: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async run<T>(organizationId: string, task: () => Promise<T>): Promise<T> {
    await this.enter(organizationId);
    try {
      return await task();
    } finally {
      this.leave(organizationId);
    }
  }

  private enter(organizationId: string): Promise<void> | undefined {
    this.see(organizationId);
    let lane = this.lanes.get(organizationId);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(organizationId, lane);
    }
    if (lane.running < this.limit || !this.contended(organizationId)) {
      lane.running += 1;
      return undefined;
    }
    laneHeld();
    const queue = lane.waiting;
    // `leave` hands its place over: the count of running requests stays as it is.
    return new Promise((resolve) => queue.push(resolve));
  }

  private leave(organizationId: string): void {
    const lane = this.lanes.get(organizationId);
    if (!lane) return;
    // Alone again, the organization's waiting requests all go.
    const handOver = this.contended(organizationId) ? 1 : lane.waiting.length;
    const next = lane.waiting.splice(0, Math.max(1, handOver));
    lanesEntered(next.length);
    lane.running += next.length - 1;
    for (const resolve of next) resolve();
    if (lane.running === 0) this.lanes.delete(organizationId);
  }

  private see(organizationId: string): void {
    const at = this.now();
    if (this.latest.organizationId !== organizationId) this.other = this.latest;
    this.latest = { organizationId, at };
  }

  /** Another organization sent a request a moment ago. */
  private contended(organizationId: string): boolean {
    const seen = this.latest.organizationId === organizationId ? this.other : this.latest;
    return this.now() - seen.at < CONTENTION_MS;
  }
}
