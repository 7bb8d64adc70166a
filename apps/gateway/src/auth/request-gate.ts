import { DomainException } from '#common';
import type { Principal } from '#contracts';
import type { FastifyReply } from 'fastify';

import type { RateLimiter, RateLimitVerdict } from '../rate-limit/rate-limiter.js';
import { addressBucketOf } from './client-address.util.js';
import type { CredentialCache } from './credential-cache.js';
import { crossSiteRefusal } from './cross-site.util.js';
import type { AuthenticatedRequest } from './principal.decorator.js';
import { type AddressLimit, edgeConfigOf } from './route-config.js';

const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** One bucket per organization key, and one per signed-in member. */
function credentialBucket(principal: Principal): string {
  return principal.keyId ? `key:${principal.keyId}` : `user:${principal.userId}`;
}

/** The rate limits the gate applies, each a window and a budget per bucket. */
export interface GateLimits {
  /** Per key and per member (the contract's 1,000 an hour). */
  credential: RateLimiter;
  /** Per organization, all its keys and members together. */
  organization: RateLimiter;
  /** Per client address, for each limited kind of public route. */
  address: Record<AddressLimit, RateLimiter>;
  /** Refused credentials per client address. */
  refused: RateLimiter;
}

/**
 * The gateway's edge: who the caller is, and whether they may go on, decided from the headers alone,
 * before the body is read (a Fastify `onRequest` hook: Nest's guards run after the body is parsed).
 * A stranger's request therefore costs a header check, however large a body it announces; a caller
 * past a limit is refused before catalog is asked anything.
 */
export class RequestGate {
  constructor(
    private readonly credentials: CredentialCache,
    private readonly limits: GateLimits,
    private readonly publicOrigin: string,
  ) {}

  /** Throws the refusal, or records the resolved principal on the request. */
  async admit(request: AuthenticatedRequest, reply: FastifyReply): Promise<void> {
    const route = edgeConfigOf(request.routeOptions.config);
    const cookie = request.headers.cookie;
    const token = bearerToken(request.headers.authorization);
    const sessionCookie = token === undefined && cookie !== undefined && SESSION_COOKIE.test(cookie);
    // A browser sends its cookies with requests other sites make it send: a change made with the
    // cookie alone must come from a page of ours.
    if (sessionCookie) {
      const refusal = crossSiteRefusal(request.method, request.headers, this.publicOrigin);
      if (refusal) throw new DomainException('forbidden', refusal);
    }
    if (route.addressLimit) {
      const bucket = `${route.addressLimit}:${addressBucketOf(request.ip)}`;
      const verdict = await this.limits.address[route.addressLimit].hit(bucket);
      if (!verdict.allowed) throw rateLimited(verdict, reply, 'This address');
    }
    if (route.access === 'public') return;

    const credential = token ?? (sessionCookie ? `cookie:${cookie}` : undefined);
    if (!credential) {
      throw new DomainException(
        'unauthorized',
        'Send an organization key or a session as "Authorization: Bearer <token>".',
      );
    }
    // Only a credential that may be refused needs its address (most are cached valid ones).
    const refusedBucket = () => `refused:${addressBucketOf(request.ip)}`;
    // An address past its refusals is not let to ask catalog again; a credential already known to be
    // valid asks nothing, so colleagues behind one address are not locked out by one guesser.
    if (!this.credentials.knownValid(credential) && this.limits.refused.exceeded(refusedBucket())) {
      throw rateLimited(await this.limits.refused.hit(refusedBucket()), reply, 'This address');
    }
    const principal = await this.resolve(credential, refusedBucket, reply);
    if (principal.keyId !== null && route.access === 'session') {
      throw new DomainException(
        'forbidden',
        'This route is for signed-in members; organization keys cannot use it.',
      );
    }
    await this.limit(principal, reply);
    request.principal = principal;
  }

  private async resolve(
    credential: string,
    refusedBucket: () => string,
    reply: FastifyReply,
  ): Promise<Principal> {
    const resolved = await this.credentials.get(credential);
    if (resolved.kind === 'principal') return resolved.principal;
    // Only an unknown credential is a guess; a valid one without an organization is not.
    if (resolved.kind === 'unauthorized') {
      const verdict = await this.limits.refused.hit(refusedBucket());
      if (!verdict.allowed) throw rateLimited(verdict, reply, 'This address');
    }
    switch (resolved.kind) {
      case 'unauthorized':
        throw new DomainException('unauthorized', 'The credential is missing, expired or revoked.');
      case 'no_active_organization':
        throw new DomainException(
          'no_active_organization',
          'Choose an active organization for this session first.',
        );
      case 'forbidden':
        throw new DomainException('forbidden', resolved.message);
    }
  }

  /**
   * The credential's own budget, then its organization's: a credential past its own limit spends
   * none of the organization's, so one runaway key cannot lock its colleagues out. The headers
   * describe the credential's, the contract's limit, unless the organization's has less left.
   */
  private async limit(principal: Principal, reply: FastifyReply): Promise<void> {
    const own = await this.limits.credential.hit(credentialBucket(principal));
    const organization = own.allowed
      ? await this.limits.organization.hit(`org:${principal.organizationId}`)
      : undefined;
    const binding = organization && organization.remaining < own.remaining ? organization : own;
    reply.header('RateLimit-Limit', binding.limit);
    reply.header('RateLimit-Remaining', binding.remaining);
    reply.header('RateLimit-Reset', binding.resetSeconds);
    if (!own.allowed) throw rateLimited(own, reply, 'This credential');
    if (organization && !organization.allowed) throw rateLimited(organization, reply, 'This organization');
  }
}

function rateLimited(verdict: RateLimitVerdict, reply: FastifyReply, who: string): DomainException {
  reply.header('Retry-After', verdict.resetSeconds);
  const window = verdict.windowSeconds >= 3600 ? 'an hour' : 'a minute';
  return new DomainException(
    'rate_limited',
    `${who} may make ${verdict.limit} requests ${window}. Try again in ${verdict.resetSeconds} s.`,
    { limit: verdict.limit, retryAfterSeconds: verdict.resetSeconds },
  );
}
