import { createLogger, DomainException } from '#common';
import { type Principal, RunnerSubjects, type WorkflowRunDto } from '#contracts';
import { isSubjectToken, RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { GatewayConfig } from '../gateway.config.js';
import { RunWatcher } from './run-watcher.service.js';
import { SentRun, SSE_HEARTBEAT, sseEvent, STREAM_END_STATUSES } from './run-events.util.js';
import { WAIT_NOTICE_STATUSES, waitEnds } from './run-wait.util.js';

/** Heartbeats without a notice after which a stream reads its run anyway. */
const QUIET_HEARTBEATS_PER_READ = 4;

/** Server-Sent Events of one run; `close` (idempotent) stops them and lets go of the run's notices. */
export interface RunEventStream {
  events: AsyncIterable<string>;
  close(): void;
}

/** A signal aborted when either is; `dispose` unhooks it from both (the gateway's lives long). */
function eitherAborted(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (a.aborted || b.aborted) abort();
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      a.removeEventListener('abort', abort);
      b.removeEventListener('abort', abort);
    },
  };
}

/** Wakes one waiting reader; a ring while nobody waits is kept for the next wait. */
class Doorbell {
  private rung = false;
  private wake?: () => void;

  ring(): void {
    this.rung = true;
    this.wake?.();
  }

  /** Resolves at a ring (true), or false once `ms` pass or `signal` aborts. */
  async wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (!this.rung && ms > 0 && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
      this.wake = undefined;
    }
    const rung = this.rung;
    this.rung = false;
    return rung;
  }
}

/**
 * Runs answered without polling (docs/runs.md, "Live runs"): a wait holds a read of the run back
 * until it ends or waits, a stream sends its changes. Both subscribe to the run's change notices
 * before they read it, so no change falls between the read and the subscription, and read again only
 * when a notice says there is something to read. Reads go through `runs.get` with the caller's
 * principal, so another organization's run is never seen.
 */
@Injectable()
export class LiveRuns {
  private readonly logger = createLogger('gateway');

  constructor(
    private readonly rpc: RpcClient,
    private readonly watcher: RunWatcher,
    private readonly config: GatewayConfig,
  ) {}

  /**
   * The run once a wait until `deadline` (epoch ms) ends at it (`waitEnds`: final, `paused`, or
   * `waiting` on a decision or on a delay or retry due after the deadline), or as it stands at
   * `deadline`, when the client leaves (`signal`) or when the gateway shuts down. `known` is a read
   * already made (a start's answer). A run that wakes and waits again is judged again at its notice.
   */
  async waitFor(
    principal: Principal,
    runId: string,
    deadline: number,
    signal: AbortSignal,
    known?: WorkflowRunDto,
  ): Promise<WorkflowRunDto> {
    const read = () => this.rpc.request(RunnerSubjects.runsGet, principal, { id: runId });
    if (known && (await this.endsWait(principal, known, deadline))) return known;
    // An id that cannot be a subject token names no run: the read answers run_not_found.
    if (Date.now() >= deadline || !isSubjectToken(runId)) return read();
    const bell = new Doorbell();
    const release = await this.watcher.watch(runId, (notice) => {
      if (notice === null || WAIT_NOTICE_STATUSES.has(notice.status)) bell.ring();
    });
    const stop = eitherAborted(signal, this.watcher.closing);
    try {
      for (;;) {
        const run = await read();
        if (Date.now() >= deadline || stop.signal.aborted) return run;
        if (await this.endsWait(principal, run, deadline)) return run;
        if (!(await bell.wait(deadline - Date.now(), stop.signal))) return read();
      }
    } finally {
      stop.dispose();
      release();
    }
  }

  /**
   * Whether `run`, as just read, ends a wait until `deadline`. Of a `waiting` run the runner is asked
   * what it waits for; should the run have moved on meanwhile, its notice is on its way (the wait
   * subscribed before it read), and the wait judges the run again then.
   */
  private async endsWait(principal: Principal, run: WorkflowRunDto, deadline: number): Promise<boolean> {
    if (run.status !== 'waiting') {
      return waitEnds({ status: run.status, wakeAt: null, awaitsDecision: false }, deadline);
    }
    const wake = await this.rpc.request(RunnerSubjects.runsNextWake, principal, { id: run.id });
    return wake.status === run.status && waitEnds(wake, deadline);
  }

  /**
   * Opens the stream of a run: subscribes, reads the run (throwing `run_not_found` before anything is
   * sent), and answers its Server-Sent Events. They end after `end` once the run is final, or
   * without it when `close` is called (the client left) or the gateway shuts down.
   */
  async stream(principal: Principal, runId: string): Promise<RunEventStream> {
    if (!isSubjectToken(runId)) throw DomainException.notFound('run', runId);
    const bell = new Doorbell();
    const release = await this.watcher.watch(runId, () => bell.ring());
    const read = () => this.rpc.request(RunnerSubjects.runsGet, principal, { id: runId });
    let first: WorkflowRunDto;
    try {
      first = await read();
    } catch (error) {
      release();
      throw error;
    }
    const left = new AbortController();
    const stop = eitherAborted(left.signal, this.watcher.closing);
    const close = () => {
      left.abort();
      stop.dispose();
      release();
    };
    return { events: this.events(first, read, bell, stop.signal, close), close };
  }

  private async *events(
    first: WorkflowRunDto,
    read: () => Promise<WorkflowRunDto>,
    bell: Doorbell,
    stop: AbortSignal,
    close: () => void,
  ): AsyncGenerator<string> {
    try {
      const sent = new SentRun(first);
      yield sseEvent('run', first);
      let status = first.status;
      // A read that failed (the runner busy or restarting) is tried again at the next heartbeat.
      let retry = false;
      let quiet = 0;
      while (!STREAM_END_STATUSES.has(status) && !stop.aborted) {
        // Notices that come while a read is in flight or an event is being written ring once:
        // the next read covers them all.
        const rung = await bell.wait(this.config.RUN_STREAM_HEARTBEAT_MS, stop);
        // A notice is published after its write commits and can be lost (the runner dies in
        // between): a quiet run is read again now and then, so a stream cannot wait forever.
        quiet = rung ? 0 : quiet + 1;
        if (!rung && !retry && quiet % QUIET_HEARTBEATS_PER_READ !== 0) {
          if (!stop.aborted) yield SSE_HEARTBEAT;
          continue;
        }
        if (stop.aborted) break;
        let run: WorkflowRunDto;
        try {
          run = await read();
          retry = false;
        } catch (error) {
          this.logger.warn({ err: error, runId: first.id }, 'reading a streamed run failed; retrying');
          retry = true;
          yield SSE_HEARTBEAT;
          continue;
        }
        for (const event of sent.eventsTo(run)) yield event;
        status = run.status;
      }
      if (STREAM_END_STATUSES.has(status)) yield sseEvent('end', { id: first.id, status });
    } finally {
      close();
    }
  }
}
