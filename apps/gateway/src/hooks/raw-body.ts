import { HOOK_BODY_MAX_BYTES } from '#contracts';
import type { FastifyRequest, RouteOptions } from 'fastify';

/** Webhook deliveries are verified over the exact bytes sent, so their body is kept as it came. */
export const HOOKS_PREFIX = '/hooks/';

export interface RawBodyRequest extends FastifyRequest {
  rawBody?: string;
}

export const isHookRoute = (url: string | undefined): boolean => url?.startsWith(HOOKS_PREFIX) ?? false;

/** Deliveries are small: a hook route takes at most HOOK_BODY_MAX_BYTES, not the API's body limit. */
export function limitHookBodies(route: RouteOptions): void {
  if (isHookRoute(route.url)) route.bodyLimit = HOOK_BODY_MAX_BYTES;
}
