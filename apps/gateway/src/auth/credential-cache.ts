import type { CredentialsInvalidated, ResolvedCredential } from '#contracts';
import { LRUCache } from 'lru-cache';

const MAX_ENTRIES = 50_000;
/** A refused credential is remembered briefly so a bad key cannot make every request reach catalog. */
const REFUSED_TTL_MS = 5_000;

/**
 * Resolved credentials, kept for a short time so most requests never reach catalog. Revocation reaches
 * it two ways: catalog broadcasts an invalidation that clears it, and every entry expires anyway.
 * Concurrent misses for one credential share a single lookup.
 */
export class CredentialCache {
  private readonly entries: LRUCache<string, Promise<ResolvedCredential>>;
  /** What each lookup settled to, for `known`, which must not wait for one. */
  private readonly settled = new WeakMap<Promise<ResolvedCredential>, ResolvedCredential>();

  constructor(
    private readonly ttlMs: number,
    private readonly resolve: (token: string) => Promise<ResolvedCredential>,
  ) {
    this.entries = new LRUCache({ max: MAX_ENTRIES, ttl: Math.max(ttlMs, 1), ttlAutopurge: false });
  }

  get(token: string): Promise<ResolvedCredential> {
    const cached = this.entries.get(token);
    if (cached) return cached;
    const lookup = this.resolve(token);
    lookup.then(
      (resolved) => this.settled.set(lookup, resolved),
      () => undefined,
    );
    if (this.ttlMs > 0) {
      this.entries.set(token, lookup);
      lookup.then(
        (resolved) => {
          if (resolved.kind !== 'principal' && this.entries.get(token) === lookup) {
            this.entries.set(token, lookup, { ttl: Math.min(this.ttlMs, REFUSED_TTL_MS) });
          }
        },
        () => this.entries.delete(token),
      );
    }
    return lookup;
  }

  /** Whether the credential is cached as a valid one: asked without waiting, and without a lookup. */
  knownValid(token: string): boolean {
    const cached = this.entries.peek(token);
    return cached !== undefined && this.settled.get(cached)?.kind === 'principal';
  }

  /**
   * Forgets the credentials a change made stale: those of the users and keys named (or every one).
   * Lookups still in flight may have read the state before the change, and refusals carry no owner:
   * both go too, and cost a lookup each at most.
   */
  forget({ userIds = [], keyIds = [], all = false }: CredentialsInvalidated): void {
    if (all) return this.entries.clear();
    const users = new Set(userIds);
    const keys = new Set(keyIds);
    const stale = [...this.entries.entries()].filter(([, lookup]) => {
      const resolved = this.settled.get(lookup);
      return (
        resolved?.kind !== 'principal' ||
        (resolved.principal.userId !== null && users.has(resolved.principal.userId)) ||
        (resolved.principal.keyId !== null && keys.has(resolved.principal.keyId))
      );
    });
    for (const [token] of stale) this.entries.delete(token);
  }
}
