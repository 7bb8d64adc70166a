/**
 * The engine worker: a child process of the database service that holds the shard's DuckDB
 * instances and runs its batches (docs/databases.md, "The engine worker"). The service starts it
 * under a data-size limit (RLIMIT_DATA), so a query that makes DuckDB allocate past it fails with
 * DuckDB's out-of-memory error instead of growing the process until the node runs out of memory.
 * Everything else (NATS, metadata, shards, moves) stays in the service, which talks to it over the
 * IPC channel it was started with.
 */
import { homedir } from 'node:os';

import { bytesOf, DomainException } from '#common';

import { BatchRunner, type EngineContext } from '../batch-runner.js';
import { DatabaseFiles } from '../database-files.js';
import { OpenDatabases } from '../open-databases.js';
import { PathScrubber } from '../path-scrubber.js';
import { EngineChannel } from './engine-channel.js';
import type {
  EngineCall,
  ServiceCall,
  ServiceResults,
  WireMessage,
  WorkerSettings,
} from './engine.messages.js';

const send = process.send?.bind(process);
if (!send) throw new Error('The engine worker runs only as a child of the database service.');

const settings = JSON.parse(process.argv[2] ?? '{}') as WorkerSettings;
const files = new DatabaseFiles(settings.dataDir);
const context: EngineContext = {
  scrubber: new PathScrubber(files.root, homedir()),
  pendingBoundBytes: bytesOf(settings.memoryLimit) + bytesOf(settings.spillLimit),
};
let closed = false;

/**
 * A worker outliving its service would keep holding the DuckDB files' locks, and the service
 * started again could open none of them. The channel closes when the service ends however it ends
 * (SIGKILL included); the parent check covers a channel that somehow stays open.
 */
function dieWithService(): void {
  if (closed) process.exit(0);
  // Statements may be running on DuckDB's threads: ending at once is safer than an orderly exit,
  // and the write-ahead log keeps every committed batch.
  process.kill(process.pid, 'SIGKILL');
}
process.on('disconnect', dieWithService);
// The channel may have closed while this module loaded, before anything listened.
if (!process.connected) dieWithService();
setInterval(() => {
  if (process.ppid !== settings.servicePid) dieWithService();
}, 1_000).unref();

const channel: EngineChannel<ServiceCall, ServiceResults, EngineCall> = new EngineChannel(
  (message, sent) => send(message, undefined, undefined, sent),
  serve,
);
const engine = new OpenDatabases(
  files,
  settings,
  (level, { err, databaseId }, message) =>
    channel.emit({
      event: 'log',
      level,
      fields: { databaseId, err: err instanceof Error ? { message: err.message, stack: err.stack } : err },
      message,
    }),
  (databaseId, bytes) => channel.emit({ event: 'storage', databaseId, bytes }),
);
process.on('message', (message: WireMessage) => channel.receive(message));
/** The batches running, by the service's batch id, so a cancel of their run can stop them. */
const cancels = new Map<number, AbortController>();

async function serve(call: EngineCall): Promise<unknown> {
  switch (call.op) {
    case 'create':
      return engine.create(call.organizationId, call.databaseId);
    case 'batch': {
      // Registered before anything is awaited: the channel delivers a cancel after its batch.
      const cancel = new AbortController();
      cancels.set(call.batchId, cancel);
      try {
        const lease = await engine.lease(call.organizationId, call.databaseId);
        try {
          const budget = () => channel.call({ op: 'storageBudget', batchId: call.batchId });
          return await new BatchRunner(
            lease,
            call.statements,
            { ...call.limits, storageBudget: budget },
            context,
            cancel.signal,
          ).run();
        } finally {
          lease.release();
        }
      } finally {
        cancels.delete(call.batchId);
      }
    }
    case 'cancel':
      cancels.get(call.batchId)?.abort(DomainException.runCancelled(call.message));
      return null;
    case 'close':
      return engine.close(call.databaseId, call.drainMs);
    case 'drop':
      return engine.drop(call.organizationId, call.databaseId);
    case 'drain':
      return engine.drain(call.graceMs);
    case 'closeAll':
      await engine.closeAll();
      closed = true;
      return null;
  }
}

send({ type: 'ready' } satisfies WireMessage);
