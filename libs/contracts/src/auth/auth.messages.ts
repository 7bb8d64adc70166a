import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

import type { Principal } from '../common/principal.js';
import { IsStringRecord } from '../messaging/string-record.decorator.js';

/** Longer than any key or session token we issue; a cookie header carries several cookies. */
const TOKEN_MAX_LENGTH = 4_096;
const COOKIE_MAX_LENGTH = 16_384;

export class ResolveCredential {
  /** The bearer token: an organization key or a session token. */
  @IsOptional()
  @IsString()
  @MaxLength(TOKEN_MAX_LENGTH)
  token?: string;

  /** The raw Cookie header, for browser sessions. */
  @IsOptional()
  @IsString()
  @MaxLength(COOKIE_MAX_LENGTH)
  cookie?: string;
}

export type ResolvedCredential =
  | { kind: 'principal'; principal: Principal }
  | { kind: 'no_active_organization' }
  | { kind: 'forbidden'; message: string }
  | { kind: 'unauthorized' };

/**
 * Whose cached credentials a change made stale: the sessions and keys of these users, these keys, or,
 * when the change cannot say whose, every one.
 */
export interface CredentialsInvalidated {
  userIds?: string[];
  keyIds?: string[];
  all?: boolean;
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** A browser route under /api/auth, carried to catalog as-is so better-auth answers it. */
export class AuthHttpRequest {
  @IsIn(HTTP_METHODS)
  method!: string;

  @IsString()
  @MaxLength(8_192)
  url!: string;

  @IsStringRecord(200)
  headers!: Record<string, string>;

  /** The gateway's body limit bounds it before it gets here. */
  @IsOptional()
  @IsString()
  body?: string;
}

export interface AuthHttpResponse {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

export class RateLimitHit {
  @IsString()
  @MaxLength(300)
  bucket!: string;

  /** Hits since the last sync: never negative, so a sync can only add to a window. */
  @IsInt()
  @Min(0)
  count!: number;
}

export class RateLimitConsume {
  /** Hits per bucket since the last sync. */
  @IsArray()
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => RateLimitHit)
  hits!: RateLimitHit[];

  /** Start of the hour window, in epoch milliseconds. */
  @IsInt()
  @Min(0)
  windowStart!: number;
}

export interface RateLimitTotals {
  totals: Array<{ bucket: string; count: number }>;
}
