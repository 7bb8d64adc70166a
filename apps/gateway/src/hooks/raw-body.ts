import type { FastifyRequest } from 'fastify';

/** Webhook deliveries are verified over the exact bytes sent, so their body is kept as it came. */
export const HOOKS_PREFIX = '/hooks/';

export interface RawBodyRequest extends FastifyRequest {
  rawBody?: string;
}

export const isHookRoute = (url: string | undefined): boolean => url?.startsWith(HOOKS_PREFIX) ?? false;
