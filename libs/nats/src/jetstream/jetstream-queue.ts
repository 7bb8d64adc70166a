import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { Context } from '#common';
import { errors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

import { injectTraceHeaders } from '../trace-context.js';
import type { JobDefinition, JobHandler } from './job-definition.js';
import { JobWorker, type JobWorkerOptions } from './job-worker.js';

/** JetStream durations are nanoseconds; every duration in our definitions is milliseconds. */
export const nanos = (ms: number): number => Math.round(ms * 1_000_000);

const NOT_FOUND_CODES = new Set<number>([
  JetStreamApiCodes.StreamNotFound,
  JetStreamApiCodes.ConsumerNotFound,
]);

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && NOT_FOUND_CODES.has(error.code);
}

/** How long a service's start waits for JetStream to take its stream and consumer. */
const ENSURE_WITHIN_MS = 60_000;

/**
 * What a cluster says while it elects a leader, a node restarts or its servers are overloaded: an API
 * request that timed out or reached no JetStream, "temporarily unavailable", or too few peers up for a
 * replicated stream. Worth asking again, where a configuration JetStream refuses is not.
 */
function isPassing(error: unknown): boolean {
  if (error instanceof errors.TimeoutError || error instanceof errors.NoRespondersError) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /timeout|temporarily unavailable|not enabled|no responders|insufficient resources|no suitable peers/i.test(
    message,
  );
}

export interface PublishResult {
  /** The stream already held a job with this message id: this publish stored nothing. */
  duplicate: boolean;
  sequence: number;
}

/**
 * The JetStream side of a job queue: makes sure the stream and the durable consumer exist with the
 * job's settings, publishes jobs with their deterministic message id, and starts pull workers.
 * NestJS has no JetStream transport, so services use this for jobs, as they use `@Handles` for requests.
 */
export class JetStreamQueue {
  private readonly client: JetStreamClient;
  private manager?: Promise<JetStreamManager>;

  /**
   * `replicas`: how many JetStream servers keep each job stream (`NATS_STREAM_REPLICAS`); 3 in a
   * 3-node cluster, so a lost node loses no accepted job; 1 on a single server, which refuses more.
   */
  constructor(
    private readonly connection: NatsConnection,
    private readonly logger: Logger,
    private readonly replicas = 1,
  ) {
    this.client = jetstream(connection);
  }

  /**
   * Creates the stream (work-queue retention, file storage) and the durable pull consumer, or brings
   * their settings in line with the definition. Several replicas may call it at once.
   */
  async ensure(
    definition: JobDefinition<unknown>,
    { maxAckPending = 10_000, withinMs = ENSURE_WITHIN_MS } = {},
  ): Promise<void> {
    const deadline = Date.now() + withinMs;
    for (let pauseMs = 250; ; pauseMs = Math.min(pauseMs * 2, 4_000)) {
      try {
        return await this.ensureOnce(definition, maxAckPending);
      } catch (error) {
        if (!isPassing(error) || Date.now() + pauseMs > deadline) throw error;
        this.logger.warn(
          { err: error, stream: definition.stream },
          'JetStream is not ready yet; trying again',
        );
        await sleep(pauseMs);
      }
    }
  }

  private async ensureOnce(definition: JobDefinition<unknown>, maxAckPending: number): Promise<void> {
    const manager = await this.jsm();
    const stream = await manager.streams.info(definition.stream).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
    const duplicateWindow = nanos(definition.duplicateWindowMs);
    if (!stream) {
      await manager.streams
        .add({
          name: definition.stream,
          subjects: [definition.subject],
          retention: RetentionPolicy.Workqueue,
          storage: StorageType.File,
          duplicate_window: duplicateWindow,
          num_replicas: this.replicas,
        })
        .catch(async (error: unknown) => {
          // Another replica created it first: fine as long as it is there now.
          await manager.streams.info(definition.stream).catch(() => {
            throw error;
          });
        });
    } else if (
      stream.config.duplicate_window !== duplicateWindow ||
      !stream.config.subjects?.includes(definition.subject) ||
      stream.config.num_replicas !== this.replicas
    ) {
      // A cluster grown from one node to three moves its streams to three replicas here, on the
      // next start of a service that uses them.
      this.logger.info({ stream: definition.stream, replicas: this.replicas }, 'updating the job stream');
      await manager.streams.update(definition.stream, {
        subjects: [...new Set([...(stream.config.subjects ?? []), definition.subject])],
        duplicate_window: duplicateWindow,
        num_replicas: this.replicas,
      });
    }

    const wanted = {
      ack_wait: nanos(definition.ackWaitMs),
      max_deliver: definition.maxDeliver,
      max_ack_pending: maxAckPending,
    };
    const consumer = await manager.consumers
      .info(definition.stream, definition.consumer)
      .catch((error: unknown) => {
        if (isNotFound(error)) return null;
        throw error;
      });
    if (!consumer) {
      await manager.consumers
        .add(definition.stream, {
          durable_name: definition.consumer,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: definition.subject,
          ...wanted,
        })
        .catch(async (error: unknown) => {
          await manager.consumers.info(definition.stream, definition.consumer).catch(() => {
            throw error;
          });
        });
    } else if (
      consumer.config.ack_wait !== wanted.ack_wait ||
      consumer.config.max_deliver !== wanted.max_deliver ||
      consumer.config.max_ack_pending !== wanted.max_ack_pending
    ) {
      this.logger.info({ job: definition.name, ...wanted }, 'updating the job consumer settings');
      await manager.consumers.update(definition.stream, definition.consumer, wanted);
    }
  }

  /**
   * Stores a job; resolves once JetStream has it (or already had it under the same message id). Its
   * headers carry the trace context the job's handling continues: `trace`, or the active one.
   */
  async publish<TPayload>(
    definition: JobDefinition<TPayload>,
    payload: TPayload,
    { trace }: { trace?: Context } = {},
  ): Promise<PublishResult> {
    const headers = natsHeaders();
    injectTraceHeaders(headers, trace);
    const ack = await this.client.publish(definition.subject, JSON.stringify(payload), {
      msgID: definition.messageId(payload),
      ...(headers.keys().length > 0 ? { headers } : {}),
    });
    return { duplicate: ack.duplicate, sequence: ack.seq };
  }

  /** The jobs the stream holds (queued or being worked on); fails when JetStream does not answer for it. */
  async storedJobs(definition: JobDefinition<unknown>): Promise<number> {
    const manager = await this.jsm();
    return (await manager.streams.info(definition.stream)).state.messages;
  }

  /** What the job's consumer holds back: not yet delivered, delivered and unacknowledged, redelivered. */
  async consumerBacklog(
    definition: JobDefinition<unknown>,
  ): Promise<{ pending: number; ackPending: number; redelivered: number }> {
    const manager = await this.jsm();
    const info = await manager.consumers.info(definition.stream, definition.consumer);
    return { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
  }

  /** Starts pulling jobs for `handler`; stop the returned worker on shutdown. */
  work<TPayload>(
    definition: JobDefinition<TPayload>,
    handler: JobHandler<TPayload>,
    options: JobWorkerOptions,
  ): JobWorker<TPayload> {
    const worker = new JobWorker(this.client, definition, handler, options, this.logger);
    worker.start();
    return worker;
  }

  /** Removes the stream and its jobs: for tests and benchmarks that made their own. */
  async deleteStream(stream: string): Promise<void> {
    const manager = await this.jsm();
    await manager.streams.delete(stream).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }

  private jsm(): Promise<JetStreamManager> {
    // A manager that could not be made (JetStream not up yet) is not kept: the next call tries again.
    this.manager ??= jetstreamManager(this.connection).catch((error: unknown) => {
      this.manager = undefined;
      throw error;
    });
    return this.manager;
  }
}
