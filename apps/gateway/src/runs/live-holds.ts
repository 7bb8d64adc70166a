import { DomainException } from '#common';
import type { Principal } from '#contracts';
import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { GatewayConfig } from '../gateway.config.js';

const STREAM_RETRY_SECONDS = 5;

/** Lets go of a hold; calling it again does nothing. */
export type ReleaseHold = () => void;

/**
 * Open streams and waiting reads, counted per organization on this gateway: each holds a socket, a
 * subscription and memory for as long as it lasts, so one organization's thousand cannot starve the
 * others. A wait past the cap is answered at once (a wait is a preference); a stream past it is refused.
 */
@Injectable()
export class LiveHolds {
  private readonly held = new Map<string, number>();

  constructor(private readonly config: GatewayConfig) {}

  get limit(): number {
    return this.config.LIVE_HOLDS_PER_ORGANIZATION;
  }

  /** A hold for the organization, or null when it already has as many as it may. */
  take(organizationId: string): ReleaseHold | null {
    const count = this.held.get(organizationId) ?? 0;
    if (count >= this.limit) return null;
    this.held.set(organizationId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(organizationId) ?? 1) - 1;
      if (left > 0) this.held.set(organizationId, left);
      else this.held.delete(organizationId);
    };
  }
}

/** A hold for a stream, or its refusal (429, `details.resource` `streams`) past the cap. */
export function holdForStream(holds: LiveHolds, principal: Principal, reply: FastifyReply): ReleaseHold {
  const release = holds.take(principal.organizationId);
  if (release) return release;
  const limit = holds.limit;
  void reply.header('Retry-After', STREAM_RETRY_SECONDS);
  throw new DomainException(
    'rate_limited',
    `This organization has ${limit} streams and waits open on this server already; close one and try again.`,
    { limit, resource: 'streams', retryAfterSeconds: STREAM_RETRY_SECONDS },
  );
}
