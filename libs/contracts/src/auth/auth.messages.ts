import type { Principal } from '../common/principal.js';

export interface ResolveCredential {
  /** The bearer token: an organization key or a session token. */
  token?: string;
  /** The raw Cookie header, for browser sessions. */
  cookie?: string;
}

export type ResolvedCredential =
  | { kind: 'principal'; principal: Principal }
  | { kind: 'no_active_organization' }
  | { kind: 'forbidden'; message: string }
  | { kind: 'unauthorized' };

/** A browser route under /api/auth, carried to catalog as-is so better-auth answers it. */
export interface AuthHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface AuthHttpResponse {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

export interface RateLimitConsume {
  /** Hits per bucket since the last sync. */
  hits: Array<{ bucket: string; count: number }>;
  windowStart: number;
}

export interface RateLimitTotals {
  totals: Array<{ bucket: string; count: number }>;
}
