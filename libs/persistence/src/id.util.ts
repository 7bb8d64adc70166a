import { v7 } from 'uuid';

/**
 * Ids are UUIDv7: time-ordered, so "newest first" is "highest id first" and a page boundary is a
 * single id that never moves when rows are added.
 */
export function newId(): string {
  return v7();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that cannot be one of ours is simply not found; this spares Postgres a cast error. */
export function isId(value: string): boolean {
  return UUID_PATTERN.test(value);
}
