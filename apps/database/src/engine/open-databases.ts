import { setTimeout as sleep } from 'node:timers/promises';

import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

import { AsyncMutex, KeyedMutex } from './async-mutex.js';
import type { DatabaseFiles } from './database-files.js';
import { DatabaseFileMissingError, EngineStoppingError } from './engine.errors.js';
import { storedBytes } from './storage-meter.js';

export interface EngineSettings {
  threads: number;
  memoryLimit: string;
  /** DuckDB's `max_temp_directory_size`: what one database may spill to its own `.tmp` directory. */
  spillLimit: string;
  maxOpen: number;
  idleCloseMs: number;
}

/** Told what a database holds (storage-meter.ts) when it opens and after its closing checkpoint. */
export type StorageListener = (databaseId: string, bytes: number) => void;

/** What the engine logs: the worker passes its lines to the service's logger. */
export type EngineLog = (
  level: 'warn' | 'error',
  fields: { err: unknown; databaseId: string },
  message: string,
) => void;

export type InterruptReason = 'dropped' | 'stopping';

/** A batch's hold on an open database: the database stays open until every lease is released. */
export interface DatabaseLease {
  readonly databaseId: string;
  /** The database file, beside its write-ahead log (`.wal`). */
  readonly path: string;
  /** Taken by batches that write, so two writers never conflict (docs/databases.md, "Concurrency"). */
  readonly writeLock: AsyncMutex;
  /** Why the engine interrupted this database's statements, if it did. */
  interruptReason(): InterruptReason | null;
  /**
   * What the database holds (storage-meter.ts) as last measured: when it opened, and after each batch
   * that wrote. Only writers change it, one at a time, so a writer holding the write lock reads it
   * current without asking DuckDB, and sets it after its COMMIT.
   */
  storedBytes: number;
  /** A fresh connection: its own interrupt, temporary objects and settings. */
  connect(): Promise<DuckDBConnection>;
  disconnect(connection: DuckDBConnection): void;
  release(): void;
}

interface Entry {
  databaseId: string;
  path: string;
  instance: DuckDBInstance;
  leases: number;
  lastUsed: number;
  writeLock: AsyncMutex;
  connections: Set<DuckDBConnection>;
  state: 'open' | 'closing' | 'closed';
  interrupted: InterruptReason | null;
  storedBytes: number;
}

/**
 * Settings every database opens with. They, not SQL parsing, keep a query inside its own file: no
 * file or network access (COPY, read_csv, ATTACH of a path, httpfs…), no extension installs or
 * loads from disk, and the configuration locked so a query cannot turn any of it back on.
 */
function instanceOptions(settings: EngineSettings): Record<string, string> {
  return {
    enable_external_access: 'false',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    allow_unsigned_extensions: 'false',
    allow_persistent_secrets: 'false',
    threads: String(settings.threads),
    memory_limit: settings.memoryLimit,
  };
}

/**
 * The DuckDB instances this process holds open, one per database file (DuckDB lets one process open
 * a file). Recently used ones stay open; idle ones are checkpointed and closed after a while or when
 * more than `maxOpen` are open. Opening, closing and dropping a database are serialized per
 * database, so a file is never opened twice nor removed while open. It runs in the engine worker
 * (engine-worker.ts); moves and the service's stop are coordinated by DatabaseEngine in the service.
 */
export class OpenDatabases {
  /** In least recently used order. */
  private readonly entries = new Map<string, Entry>();
  private readonly lifecycle = new KeyedMutex();
  private readonly sweeper: NodeJS.Timeout;
  private stopping = false;

  constructor(
    private readonly files: DatabaseFiles,
    private readonly settings: EngineSettings,
    private readonly log: EngineLog,
    private readonly onStorage: StorageListener = () => undefined,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(250, settings.idleCloseMs / 4));
    this.sweeper.unref();
  }

  get openCount(): number {
    return this.entries.size;
  }

  get activeLeases(): number {
    let leases = 0;
    for (const entry of this.entries.values()) leases += entry.leases;
    return leases;
  }

  /** Makes the empty file of a new database (and keeps it open: it is usually queried next). */
  async create(organizationId: string, databaseId: string): Promise<void> {
    if (this.stopping) throw new EngineStoppingError();
    await this.lifecycle.run(databaseId, async () => {
      await this.files.ensureDirectory(organizationId);
      await this.open(organizationId, databaseId);
    });
    this.closeOverflow();
  }

  /** A batch's hold on the database, opening it if it is not open. */
  async lease(organizationId: string, databaseId: string): Promise<DatabaseLease> {
    if (this.stopping) throw new EngineStoppingError();
    const open = this.entries.get(databaseId);
    if (open?.state === 'open') return this.leaseOf(open);
    try {
      return await this.lifecycle.run(databaseId, async () => {
        const existing = this.entries.get(databaseId);
        if (existing?.state === 'open') return this.leaseOf(existing);
        if (this.stopping) throw new EngineStoppingError();
        // Never let DuckDB create a file here: a missing file is a deleted database or a volume
        // that is not this database's, and an empty stand-in would hide either.
        if (!this.files.exists(organizationId, databaseId)) {
          throw new DatabaseFileMissingError(this.files.pathOf(organizationId, databaseId));
        }
        return this.leaseOf(await this.open(organizationId, databaseId));
      });
    } finally {
      this.closeOverflow();
    }
  }

  /**
   * Checkpoints and closes the database so its file is complete on its own, once the batches running
   * on it have ended (they get `drainMs`; past it nothing is closed and this fails). The service sends
   * it no new batch meanwhile: it is being moved.
   */
  async close(databaseId: string, drainMs: number): Promise<void> {
    if (this.stopping) throw new EngineStoppingError();
    await this.lifecycle.run(databaseId, async () => {
      const entry = this.entries.get(databaseId);
      if (!entry) return;
      const deadline = Date.now() + drainMs;
      while (entry.leases > 0 && Date.now() < deadline) await sleep(20);
      if (entry.leases > 0) throw new Error(`Batches on database ${databaseId} did not finish in time`);
      this.entries.delete(databaseId);
      entry.state = 'closing';
      await this.checkpointAndClose(entry);
    });
  }

  /** Interrupts the database's running statements, closes it and removes its files. */
  async drop(organizationId: string, databaseId: string): Promise<void> {
    await this.lifecycle.run(databaseId, async () => {
      const entry = this.entries.get(databaseId);
      if (entry) {
        this.entries.delete(databaseId);
        entry.state = 'closing';
        await this.interruptUntilIdle(entry, 'dropped', Number.POSITIVE_INFINITY);
        this.closeNow(entry);
      }
      await this.files.remove(organizationId, databaseId);
    });
  }

  /**
   * First half of a shutdown: refuses new batches and gives running ones `graceMs` to end, then
   * interrupts them (they roll back).
   */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    const deadline = Date.now() + graceMs;
    while (this.activeLeases > 0 && Date.now() < deadline) await sleep(50);
    await Promise.all(
      [...this.entries.values()].map((entry) => this.interruptUntilIdle(entry, 'stopping', 10_000)),
    );
  }

  /** Second half: checkpoints and closes every database, so the next start replays no log. */
  async closeAll(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) {
      await this.lifecycle.run(entry.databaseId, () => this.checkpointAndClose(entry));
    }
  }

  private async open(organizationId: string, databaseId: string): Promise<Entry> {
    const path = this.files.pathOf(organizationId, databaseId);
    const instance = await DuckDBInstance.create(path, instanceOptions(this.settings));
    let stored: number;
    try {
      const setup = await instance.connect();
      try {
        // Results are the same whatever the host's zone; then nothing may change the settings.
        await setup.run(`SET GLOBAL TimeZone = 'UTC'`);
        // The spill cap works only when set on the open database: given when it opens, DuckDB 1.5
        // reports it but lets the spill grow to 90% of the free disk.
        await setup.run(`SET GLOBAL max_temp_directory_size = '${this.settings.spillLimit}'`);
        await setup.run('SET GLOBAL lock_configuration = true');
        stored = await storedBytes(setup, path);
        this.onStorage(databaseId, stored);
      } finally {
        setup.closeSync();
      }
    } catch (error) {
      instance.closeSync();
      throw error;
    }
    const entry: Entry = {
      databaseId,
      path,
      instance,
      leases: 0,
      lastUsed: Date.now(),
      writeLock: new AsyncMutex(),
      connections: new Set(),
      state: 'open',
      interrupted: null,
      storedBytes: stored,
    };
    this.entries.set(databaseId, entry);
    return entry;
  }

  private leaseOf(entry: Entry): DatabaseLease {
    entry.leases += 1;
    entry.lastUsed = Date.now();
    // Re-inserting keeps the map in least recently used order.
    if (this.entries.get(entry.databaseId) === entry) {
      this.entries.delete(entry.databaseId);
      this.entries.set(entry.databaseId, entry);
    }
    let released = false;
    return {
      databaseId: entry.databaseId,
      path: entry.path,
      writeLock: entry.writeLock,
      interruptReason: () => entry.interrupted,
      get storedBytes() {
        return entry.storedBytes;
      },
      set storedBytes(bytes: number) {
        entry.storedBytes = bytes;
      },
      connect: async () => {
        const connection = await entry.instance.connect();
        entry.connections.add(connection);
        return connection;
      },
      disconnect: (connection) => {
        entry.connections.delete(connection);
        connection.closeSync();
      },
      release: () => {
        if (released) return;
        released = true;
        entry.leases -= 1;
        entry.lastUsed = Date.now();
      },
    };
  }

  private async interruptUntilIdle(entry: Entry, reason: InterruptReason, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    if (entry.leases > 0) entry.interrupted = reason;
    // A statement that had not started when interrupted would miss it, so interrupt until idle.
    while (entry.leases > 0 && Date.now() < deadline) {
      for (const connection of entry.connections) connection.interrupt();
      await sleep(50);
    }
  }

  private closeOverflow(): void {
    if (this.entries.size <= this.settings.maxOpen) return;
    for (const entry of this.entries.values()) {
      if (this.entries.size <= this.settings.maxOpen) break;
      if (entry.leases === 0) this.closeLater(entry);
    }
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.settings.idleCloseMs;
    for (const entry of this.entries.values()) {
      if (entry.leases === 0 && entry.lastUsed < cutoff) this.closeLater(entry);
    }
  }

  /** Takes an idle database out of use at once (no lease can start on it) and closes it after. */
  private closeLater(entry: Entry): void {
    this.entries.delete(entry.databaseId);
    entry.state = 'closing';
    void this.lifecycle
      .run(entry.databaseId, () => this.checkpointAndClose(entry))
      .catch((error: unknown) =>
        this.log('error', { err: error, databaseId: entry.databaseId }, 'closing a database failed'),
      );
  }

  private async checkpointAndClose(entry: Entry): Promise<void> {
    if (entry.state === 'closed') return;
    try {
      // A checkpoint folds the write-ahead log into the file; done asynchronously here, it keeps
      // the synchronous close below short.
      const connection = await entry.instance.connect();
      try {
        await connection.run('CHECKPOINT');
        this.onStorage(entry.databaseId, await storedBytes(connection, entry.path));
      } finally {
        connection.closeSync();
      }
    } catch (error) {
      this.log('warn', { err: error, databaseId: entry.databaseId }, 'checkpoint before close failed');
    }
    this.closeNow(entry);
  }

  private closeNow(entry: Entry): void {
    if (entry.state === 'closed') return;
    for (const connection of entry.connections) connection.closeSync();
    entry.connections.clear();
    entry.instance.closeSync();
    entry.state = 'closed';
  }
}
