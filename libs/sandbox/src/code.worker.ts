/**
 * A worker thread of a CodeWorkerPool: runs one sandbox job at a time and answers its outcome. It
 * says `ready` once QuickJS and sucrase are loaded, so that loading never counts against a job's time.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

import { preloadSandbox, runInSandbox, type SandboxJob } from './sandbox.js';
import type { WorkerMessage } from './worker-message.js';

/** Nice value of this thread: code that spins yields the cores to the process's own thread and its peers. */
const NICENESS = 10;

const port = parentPort;
if (!port) throw new Error('code.worker runs only as a worker thread of a CodeWorkerPool.');

// Linux gives each thread its own nice value; /proc/thread-self names this thread's id. Elsewhere the
// worker simply keeps the process's priority.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), NICENESS);
} catch {
  // Not Linux, or not allowed: the time cap still bounds what a job takes.
}

await preloadSandbox();
port.on('message', (job: SandboxJob) => {
  void runInSandbox(job).then((outcome) =>
    port.postMessage({ type: 'outcome', outcome } satisfies WorkerMessage),
  );
});
port.postMessage({ type: 'ready' } satisfies WorkerMessage);
