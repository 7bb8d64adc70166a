import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { access, constants, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { watchDataDisk } from './duckdb.metrics.js';

const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;
const DATABASE_FILE = /^([0-9a-f-]{36})\.duckdb(\.incoming)?$/;

/** A file found on the volume: a database's, or an incoming copy of one that was never adopted. */
export interface StoredFile {
  databaseId: string;
  path: string;
  incoming: boolean;
}

/** The volume was written by another shard: serving it would answer for databases it does not hold. */
export class ForeignVolumeError extends Error {}

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
    watchDataDisk(this.root);
  }

  /**
   * Writes the shard number on a volume the first time, and refuses a volume another shard wrote:
   * two replicas given one directory, or pods given each other's volumes, stop at start-up instead
   * of serving (and cleaning up) files that are not theirs.
   */
  async claim(shard: number): Promise<void> {
    const marker = join(this.root, '.shard');
    const found = await readFile(marker, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (found === null) {
      await writeFile(marker, `${shard}\n`, { flag: 'wx' });
      return;
    }
    if (Number(found.trim()) !== shard) {
      throw new ForeignVolumeError(
        `${this.root} belongs to database shard ${found.trim()}, not ${shard}: each replica needs a DATA_DIR of its own.`,
      );
    }
  }

  /** Every database file and incoming copy on the volume. */
  async stored(): Promise<StoredFile[]> {
    const found: StoredFile[] = [];
    for (const directory of await readdir(this.root, { withFileTypes: true })) {
      if (!directory.isDirectory()) continue;
      for (const name of await readdir(join(this.root, directory.name))) {
        const match = DATABASE_FILE.exec(name);
        if (!match?.[1]) continue;
        found.push({
          databaseId: match[1],
          path: join(this.root, directory.name, name),
          incoming: match[2] !== undefined,
        });
      }
    }
    return found;
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

  /** Where a copy arriving from another shard is written until it is verified. */
  incomingPathOf(organizationId: string, databaseId: string): string {
    return `${this.pathOf(organizationId, databaseId)}.incoming`;
  }

  exists(organizationId: string, databaseId: string): boolean {
    return existsSync(this.pathOf(organizationId, databaseId));
  }

  async ensureDirectory(organizationId: string): Promise<void> {
    await mkdir(this.directoryOf(organizationId), { recursive: true });
  }

  async remove(organizationId: string, databaseId: string): Promise<void> {
    await this.removeAt(this.pathOf(organizationId, databaseId));
  }

  /** A database file with its log and spill directory. */
  async removeAt(path: string): Promise<void> {
    await Promise.all([
      rm(path, { force: true }),
      rm(`${path}.wal`, { force: true }),
      rm(`${path}.tmp`, { force: true, recursive: true }),
    ]);
  }
}
