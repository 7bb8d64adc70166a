import { DomainException } from '#common';
import type { Principal } from '#contracts';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';

import { RateLimiter } from '../rate-limit/rate-limiter.js';
import { CredentialCache } from './credential-cache.js';
import type { AuthenticatedRequest } from './principal.decorator.js';
import { IS_PUBLIC } from './public.decorator.js';
import { IS_SESSION_ONLY } from './session-only.decorator.js';

const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** One bucket per organization key, and one per signed-in member. */
function rateLimitBucket(principal: Principal): string {
  return principal.keyId ? `key:${principal.keyId}` : `user:${principal.userId}`;
}

interface RouteAccess {
  controller: object;
  isPublic: boolean;
  sessionOnly: boolean;
}

@Injectable()
export class AuthGuard implements CanActivate {
  private readonly routes = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialCache,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.routeOf(context);
    if (route.isPublic) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const principal = await this.authenticate(request);
    if (principal.keyId !== null && route.sessionOnly) {
      throw new DomainException(
        'forbidden',
        'This route is for signed-in members; organization keys cannot use it.',
      );
    }
    await this.limit(principal, http.getResponse<FastifyReply>());
    request.principal = principal;
    return true;
  }

  /** A route's decorators never change, so they are read once per handler rather than per request. */
  private routeOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    const controller = context.getClass();
    let access = this.routes.get(handler);
    // An inherited method is one handler in two controllers, whose own decorators may differ.
    if (access?.controller !== controller) {
      const targets = [handler, controller];
      access = {
        controller,
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
        sessionOnly: this.reflector.getAllAndOverride<boolean>(IS_SESSION_ONLY, targets) === true,
      };
      this.routes.set(handler, access);
    }
    return access;
  }

  private async authenticate(request: AuthenticatedRequest): Promise<Principal> {
    const token = bearerToken(request.headers.authorization);
    const cookie = request.headers.cookie;
    const credential = token ?? (cookie && SESSION_COOKIE.test(cookie) ? `cookie:${cookie}` : undefined);
    if (!credential) {
      throw new DomainException(
        'unauthorized',
        'Send an organization key or a session as "Authorization: Bearer <token>".',
      );
    }
    const resolved = await this.credentials.get(credential);
    switch (resolved.kind) {
      case 'principal':
        return resolved.principal;
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

  private async limit(principal: Principal, reply: FastifyReply): Promise<void> {
    const verdict = await this.rateLimiter.hit(rateLimitBucket(principal));
    reply.header('RateLimit-Limit', verdict.limit);
    reply.header('RateLimit-Remaining', verdict.remaining);
    reply.header('RateLimit-Reset', verdict.resetSeconds);
    if (!verdict.allowed) {
      reply.header('Retry-After', verdict.resetSeconds);
      throw new DomainException(
        'rate_limited',
        `This credential may make ${verdict.limit} requests an hour. Try again in ${verdict.resetSeconds} s.`,
        { limit: verdict.limit, retryAfterSeconds: verdict.resetSeconds },
      );
    }
  }
}
