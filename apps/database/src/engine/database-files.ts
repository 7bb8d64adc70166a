import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { access, constants, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Where each database's file lives: `<DATA_DIR>/databases/<organization>/<database id>.duckdb`,
 * beside DuckDB's write-ahead log (`.wal`) and spill directory (`.tmp`).
 */
export class DatabaseFiles {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = resolve(dataDir, 'databases');
  }

  /** Fails at start-up, not on the first query, when the volume is missing or read-only. */
  async prepare(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.R_OK | constants.W_OK);
  }

  directoryOf(organizationId: string): string {
    // Organization ids come from the identity store; anything unexpected is hashed rather than
    // trusted as a path segment.
    const segment = SAFE_SEGMENT.test(organizationId)
      ? organizationId
      : `h-${createHash('sha256').update(organizationId).digest('hex').slice(0, 40)}`;
    return join(this.root, segment);
  }

  /** `databaseId` is one of our UUIDs, checked before any file is touched. */
  pathOf(organizationId: string, databaseId: string): string {
    return join(this.directoryOf(organizationId), `${databaseId}.duckdb`);
  }

  exists(organizationId: string, databaseId: string): boolean {
    return existsSync(this.pathOf(organizationId, databaseId));
  }

  async ensureDirectory(organizationId: string): Promise<void> {
    await mkdir(this.directoryOf(organizationId), { recursive: true });
  }

  async remove(organizationId: string, databaseId: string): Promise<void> {
    const path = this.pathOf(organizationId, databaseId);
    await Promise.all([
      rm(path, { force: true }),
      rm(`${path}.wal`, { force: true }),
      rm(`${path}.tmp`, { force: true, recursive: true }),
    ]);
  }
}
