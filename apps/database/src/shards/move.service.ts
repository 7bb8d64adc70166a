import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { DomainException } from '#common';
import { shardSubject } from '#contracts';
import { isId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import { headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import {
  LOGGER,
  NATS_CONNECTION,
  QUERY_SETTINGS,
  type QuerySettings,
  RPC_TIMEOUT_MS,
  SHARD,
} from '../database.tokens.js';
import type { Placement } from '../databases/database.mapper.js';
import { DatabaseRepository } from '../databases/database.repository.js';
import { DatabaseFiles } from '../engine/database-files.js';
import { DatabaseEngine, type MoveOutcome } from '../engine/database-engine.js';
import { type AdoptRequest, type MovedDto, MoveHeaders } from './move.messages.js';
import { ShardClient } from './shard.client.js';

/** Room for headers in each part of a file: the rest of NATS' `max_payload` carries bytes. */
const PART_HEADROOM_BYTES = 64 * 1024;
/** How long settling a move's outcome on its row may keep retrying while Postgres is unreachable. */
const SETTLE_TRIES = 30;

function refused(message: string): DomainException {
  return new DomainException('service_unavailable', message);
}

/**
 * Moves a database's file to another shard (docs/databases.md, "Moving a database"): the source
 * closes the database to new batches, lets running ones finish, checkpoints and closes it, sends
 * the file in parts; the target writes, fsyncs and verifies it (size and SHA-256), then switches
 * the row's shard, which is the commit point; the source then removes its copy and the batches
 * that waited are forwarded to the new owner. Each step on the row is a compare-and-set on its
 * `move_id`, so no lock is held while NATS carries the file.
 */
@Injectable()
export class MoveService {
  constructor(
    private readonly databases: DatabaseRepository,
    private readonly files: DatabaseFiles,
    private readonly engine: DatabaseEngine,
    private readonly peers: ShardClient,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(SHARD) private readonly shard: number,
    @Inject(QUERY_SETTINGS) private readonly settings: QuerySettings,
    @Inject(RPC_TIMEOUT_MS) private readonly rpcTimeoutMs: number,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Source side: moves `databaseId`, which this shard holds, to `target`. */
  async moveOut(databaseId: string, target: number): Promise<MovedDto> {
    const started = Date.now();
    if (target === this.shard)
      throw DomainException.invalidRequest([{ path: 'target', message: 'the database is already there' }]);
    const row = await this.databases.placement(databaseId);
    if (!row || row.shard !== this.shard)
      throw refused(`Database ${databaseId} is not on shard ${this.shard}.`);
    const moveId = randomUUID();
    if (!(await this.databases.beginMove(databaseId, this.shard, moveId))) {
      throw refused(`Database ${databaseId} is already moving.`);
    }
    let gate;
    try {
      // Batches already running have their own deadline; the move waits for them a little longer.
      gate = await this.engine.closeForMove(databaseId, this.settings.batchTimeoutMs + 5_000);
    } catch (error) {
      await this.databases.abortMove(databaseId, this.shard, moveId);
      throw error;
    }
    let outcome: MoveOutcome = 'stayed';
    let bytes = 0;
    try {
      const sent = await this.send(row, target, moveId);
      bytes = sent.size;
      outcome = await this.adoptBy(row, target, moveId, sent);
    } catch (error) {
      outcome = await this.settle(row, target, moveId, error);
    } finally {
      if (outcome === 'moved') {
        await this.files
          .remove(row.organizationId, databaseId)
          .catch((error: unknown) =>
            this.logger.error(
              { err: error, databaseId },
              'removing the moved copy failed; the next start removes it',
            ),
          );
      }
      gate.finish(outcome);
    }
    if (outcome === 'stayed')
      throw refused(
        `Moving database ${databaseId} to shard ${target} failed; it stays on shard ${this.shard}.`,
      );
    const ms = Date.now() - started;
    this.logger.info({ databaseId, from: this.shard, to: target, bytes, ms }, 'database moved');
    return { bytes, ms };
  }

  /** Sends the closed file in parts, each acknowledged; answers its size and hash. */
  private async send(
    row: Placement,
    target: number,
    moveId: string,
  ): Promise<{ size: number; sha256: string }> {
    const path = this.files.pathOf(row.organizationId, row.id);
    // CHECKPOINT on close folds the log into the file; a log left over would hold writes the copy lacks.
    const log = await stat(`${path}.wal`).catch(() => null);
    if (log && log.size > 0) throw new Error(`${path}.wal is not empty after the checkpoint`);
    const partBytes = Math.max(64 * 1024, (this.nats.info?.max_payload ?? 1024 * 1024) - PART_HEADROOM_BYTES);
    const hash = createHash('sha256');
    const file = await open(path, 'r');
    let offset = 0;
    try {
      const buffer = Buffer.allocUnsafe(partBytes);
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, partBytes, offset);
        if (bytesRead === 0 && offset > 0) break;
        const part = buffer.subarray(0, bytesRead);
        hash.update(part);
        const headers = natsHeaders();
        headers.set(MoveHeaders.move, moveId);
        headers.set(MoveHeaders.database, row.id);
        headers.set(MoveHeaders.organization, row.organizationId);
        headers.set(MoveHeaders.offset, String(offset));
        const reply = await this.nats.request(shardSubject(target, 'receive'), part, {
          timeout: this.rpcTimeoutMs,
          headers,
        });
        const answer = reply.json<{ ok: boolean; error?: { message: string } }>();
        if (!answer.ok) throw new Error(`shard ${target} refused a part: ${answer.error?.message}`);
        offset += bytesRead;
        if (bytesRead === 0) break;
      }
    } finally {
      await file.close();
    }
    return { size: offset, sha256: hash.digest('hex') };
  }

  private async adoptBy(
    row: Placement,
    target: number,
    moveId: string,
    { size, sha256 }: { size: number; sha256: string },
  ): Promise<MoveOutcome> {
    const request: AdoptRequest = {
      moveId,
      databaseId: row.id,
      organizationId: row.organizationId,
      source: this.shard,
      size,
      sha256,
    };
    // Verifying reads the whole file again: allow for large files.
    await this.peers.request(
      target,
      'adopt',
      { principal: null, data: request },
      this.rpcTimeoutMs + size / 20_000,
    );
    return 'moved';
  }

  /**
   * The move failed or its answer was lost: the row decides. Giving the move up on the row succeeds
   * only if the target has not committed it, and once it succeeds the target no longer can.
   */
  private async settle(row: Placement, target: number, moveId: string, cause: unknown): Promise<MoveOutcome> {
    this.logger.warn(
      { err: cause, databaseId: row.id, target },
      'moving a database failed; settling it on its row',
    );
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (await this.databases.abortMove(row.id, this.shard, moveId)) return 'stayed';
        const now = await this.databases.placement(row.id);
        // Committed by the target, or deleted meanwhile: either way no longer this shard's.
        return now?.shard === this.shard ? 'stayed' : 'moved';
      } catch (error) {
        if (attempt >= SETTLE_TRIES) {
          this.logger.error(
            { err: error, databaseId: row.id },
            'could not settle a move; the next start does',
          );
          throw error;
        }
        await sleep(1_000);
      }
    }
  }

  /** Target side: one part of a file, written at its offset of the incoming copy. */
  async receive(message: Msg): Promise<void> {
    const databaseId = message.headers?.get(MoveHeaders.database) ?? '';
    const organizationId = message.headers?.get(MoveHeaders.organization) ?? '';
    const offset = Number(message.headers?.get(MoveHeaders.offset));
    if (!isId(databaseId) || organizationId === '' || !Number.isSafeInteger(offset) || offset < 0) {
      throw DomainException.invalidRequest([
        { path: 'headers', message: 'a file part needs its database and offset' },
      ]);
    }
    const path = this.files.incomingPathOf(organizationId, databaseId);
    if (offset === 0) await this.files.ensureDirectory(organizationId);
    const file = await open(path, offset === 0 ? 'w' : 'r+');
    try {
      if ((await file.stat()).size !== offset) throw refused('A part of the file arrived out of order.');
      await file.write(message.data, 0, message.data.length, offset);
    } finally {
      await file.close();
    }
  }

  /** Target side: verifies the incoming copy, puts it in place and commits the move on the row. */
  async adopt(request: AdoptRequest): Promise<{ adopted: true }> {
    const { databaseId, organizationId, source, moveId } = request;
    const incoming = this.files.incomingPathOf(organizationId, databaseId);
    const path = this.files.pathOf(organizationId, databaseId);
    try {
      const row = await this.databases.placement(databaseId);
      if (row?.shard !== source || row.moveId !== moveId || row.organizationId !== organizationId) {
        throw refused(`Database ${databaseId} is not moving from shard ${source} by this move.`);
      }
      const file = await open(incoming, 'r+');
      try {
        await file.sync();
      } finally {
        await file.close();
      }
      const { size, sha256 } = await digest(incoming);
      if (size !== request.size || sha256 !== request.sha256) {
        throw refused(`The copy of database ${databaseId} does not match the original.`);
      }
      // Leftovers of an earlier stay here (a log above all) must not be read with the new file.
      await this.files.remove(organizationId, databaseId);
      await rename(incoming, path);
      await syncDirectory(dirname(path));
    } catch (error) {
      await this.files.removeAt(incoming);
      throw error;
    }
    if (!(await this.databases.commitMove(databaseId, source, this.shard, moveId))) {
      await this.files.remove(organizationId, databaseId);
      throw refused(`The move of database ${databaseId} was given up by shard ${source}.`);
    }
    return { adopted: true };
  }
}

async function digest(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    size += bytes.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** A rename is durable once the directory holding it is flushed. */
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
