import { createLogger, DomainException } from '#common';
import { type RunChangedEvent, RunnerSubjects } from '#contracts';
import { connectNats, type NatsEndpoint, subscribeEvent } from '#nats';
import type { BeforeApplicationShutdown, OnApplicationShutdown, Provider } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { setMaxListeners } from 'node:events';

/** A change notice of the watched run, or null when notices may have been missed (a reconnect). */
export type RunChangeListener = (notice: RunChangedEvent | null) => void;

interface WatchedRun {
  subscription: Subscription;
  listeners: Set<RunChangeListener>;
  /** Settles once the server has the subscription: a run read afterwards cannot change unnoticed. */
  ready: Promise<void>;
}

/**
 * The runner's change notices for the runs the gateway's waits and streams watch: one NATS
 * subscription per watched run (`runner.events.run-changed.<runId>`), shared by every request
 * watching it and dropped when the last one leaves. Nothing runs while no notice comes. It has a
 * connection of its own, so notices never queue behind the replies of other routes, and the
 * connection's subscriptions are exactly the runs being watched.
 */
export class RunWatcher implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly watched = new Map<string, WatchedRun>();
  private readonly stopping = new AbortController();
  private readonly logger = createLogger('gateway');

  constructor(readonly nats: NatsConnection) {
    // Every open wait and stream listens to the gateway's shutdown: thousands may, by design.
    setMaxListeners(0, this.stopping.signal);
    void this.replayAfterReconnects();
  }

  static provider(endpoint: NatsEndpoint): Provider {
    return {
      provide: RunWatcher,
      useFactory: async () => new RunWatcher(await connectNats(endpoint, 'gateway-run-watcher')),
    };
  }

  /** Aborted when the gateway begins to shut down: waits answer at once and streams end. */
  get closing(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Listens to `runId`'s notices and answers, once the subscription is in place on the server, the
   * function that stops listening. `runId` must be one subject token (`isSubjectToken`).
   */
  async watch(runId: string, listener: RunChangeListener): Promise<() => void> {
    let run = this.watched.get(runId);
    if (!run) {
      const listeners = new Set<RunChangeListener>();
      const subscription = subscribeEvent(
        this.nats,
        RunnerSubjects.runChanged,
        (notice) => {
          for (const each of listeners) each(notice);
        },
        runId,
      );
      // A PING answered means the server processed the SUB sent before it.
      run = { subscription, listeners, ready: this.nats.flush() };
      this.watched.set(runId, run);
    }
    const watched = run;
    watched.listeners.add(listener);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      watched.listeners.delete(listener);
      if (watched.listeners.size === 0 && this.watched.get(runId) === watched) {
        this.watched.delete(runId);
        watched.subscription.unsubscribe();
      }
    };
    try {
      await watched.ready;
    } catch (error) {
      release();
      this.logger.warn({ err: error, runId }, 'could not subscribe to run changes');
      throw new DomainException('service_unavailable', 'Run changes cannot be followed right now.');
    }
    return release;
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }

  /** Core NATS drops what is published while a client reconnects: every watcher reads its run again. */
  private async replayAfterReconnects(): Promise<void> {
    for await (const status of this.nats.status()) {
      if (status.type !== 'reconnect') continue;
      for (const run of this.watched.values()) for (const listener of run.listeners) listener(null);
    }
  }
}
