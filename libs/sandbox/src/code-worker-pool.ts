import { Worker } from 'node:worker_threads';

import type { SandboxJob, SandboxOutcome } from './sandbox.js';
import type { WorkerMessage } from './worker-message.js';

const WORKER_URL = new URL('./code.worker.js', import.meta.url);

/**
 * A worker's own limits. Its native stack holds QuickJS's WebAssembly frames (sandbox.ts, STACK_BYTES);
 * its V8 heap holds sucrase and a job's input and result as text, never what the code allocates,
 * which lives in the WebAssembly memory under the job's memory cap.
 */
const RESOURCE_LIMITS = { stackSizeMb: 8, maxOldGenerationSizeMb: 256 };

export interface CodeWorkerPoolOptions {
  /** Workers at most, each running one job at a time; they start on demand and then stay. */
  size: number;
  /**
   * How long past its job's time cap a worker may take before it is terminated (and replaced): the
   * cap itself is enforced inside the sandbox, so this only catches what escapes it (stripping types
   * of a large body, a host-side stall).
   */
  graceMs: number;
  /** The worker's entry point: the built `code.worker.js` beside this file unless a test gives another. */
  workerUrl?: URL;
  /** Told when a worker is terminated for running past its time or exits on its own. */
  onWorkerLost?: (reason: string) => void;
}

interface Task {
  job: SandboxJob;
  resolve: (outcome: SandboxOutcome) => void;
  reject: (reason: unknown) => void;
  /** Removes the task's abort listener. */
  detach: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task?: Task;
  watchdog?: NodeJS.Timeout;
}

/**
 * Runs sandbox jobs in worker threads, so that code that loops or allocates without end holds one
 * worker for at most its time cap and never the caller's event loop. Jobs wait in order of arrival
 * for a free worker; a worker that runs past its job's time cap and grace is terminated, the job fails
 * with `timeout`, and a new worker takes its place when there is work for it.
 */
export class CodeWorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Task[] = [];
  private closed = false;

  constructor(private readonly options: CodeWorkerPoolOptions) {}

  /** The job's outcome; rejects only when `signal` aborts it before a worker took it, or on `close`. */
  run(job: SandboxJob, signal?: AbortSignal): Promise<SandboxOutcome> {
    if (this.closed) return Promise.reject(new Error('The code sandbox is closed.'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<SandboxOutcome>((resolve, reject) => {
      const abort = () => {
        const index = this.queue.indexOf(task);
        if (index < 0) return;
        this.queue.splice(index, 1);
        reject(signal?.reason);
      };
      const task: Task = {
        job,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', abort),
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** Rejects every job not done yet and terminates every worker, busy or not. */
  async close(): Promise<void> {
    this.closed = true;
    const closing = new Error('The code sandbox is closed.');
    for (const task of this.queue.splice(0)) {
      task.detach();
      task.reject(closing);
    }
    await Promise.all(
      [...this.slots].map((slot) => {
        clearTimeout(slot.watchdog);
        slot.task?.reject(closing);
        this.slots.delete(slot);
        return slot.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      const task = slot.ready && !slot.task ? this.queue.shift() : undefined;
      if (task) this.assign(slot, task);
    }
    const starting = [...this.slots].filter((slot) => !slot.ready).length;
    const wanted = Math.min(this.queue.length - starting, this.options.size - this.slots.size);
    for (let index = 0; index < wanted; index += 1) this.start();
  }

  private assign(slot: Slot, task: Task): void {
    task.detach();
    slot.task = task;
    slot.worker.ref();
    slot.watchdog = setTimeout(() => {
      this.settle(slot, { ok: false, kind: 'timeout', message: '' });
      this.options.onWorkerLost?.('a code worker ran past its job time cap and was terminated');
      this.remove(slot);
      void slot.worker.terminate();
      this.dispatch();
    }, task.job.timeoutMs + this.options.graceMs);
    slot.worker.postMessage(task.job);
  }

  private start(): void {
    const worker = new Worker(this.options.workerUrl ?? WORKER_URL, { resourceLimits: RESOURCE_LIMITS });
    const slot: Slot = { worker, ready: false };
    this.slots.add(slot);
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') slot.ready = true;
      else this.settle(slot, message.outcome);
      this.dispatch();
    });
    worker.on('error', (error) => (failure = error));
    worker.on('exit', (code) => {
      if (!this.slots.has(slot)) return;
      const reason = `a code worker exited (code ${code}${failure ? `: ${failure.message}` : ''})`;
      this.remove(slot);
      if (this.closed) return;
      this.options.onWorkerLost?.(reason);
      if (slot.task) {
        this.settle(slot, { ok: false, kind: 'crashed', message: reason });
      } else if (!slot.ready && ![...this.slots].some((other) => other.ready)) {
        // No worker could start: the jobs would wait for one for ever.
        for (const task of this.queue.splice(0)) {
          task.detach();
          task.resolve({
            ok: false,
            kind: 'crashed',
            message: `the code sandbox could not start (${reason})`,
          });
        }
      }
      this.dispatch();
    });
  }

  private settle(slot: Slot, outcome: SandboxOutcome): void {
    clearTimeout(slot.watchdog);
    const task = slot.task;
    slot.task = undefined;
    slot.worker.unref();
    task?.resolve(outcome);
  }

  private remove(slot: Slot): void {
    clearTimeout(slot.watchdog);
    this.slots.delete(slot);
  }
}
