/**
 * One kind of queued job: where it is stored, who consumes it, how long a consumer may hold it and
 * how its message id is derived. Every job a service queues has one entry like this, so the stream,
 * the consumer and the publisher cannot disagree about a job's shape or its redelivery rules.
 */
export interface JobDefinition<TPayload> {
  /** Names the job in logs. */
  name: string;
  /** JetStream stream name (build it with `streamName()` so a test prefix isolates it). */
  stream: string;
  /** The subject jobs are published on (build it with `subject()`). */
  subject: string;
  /** The durable pull consumer every replica of the consuming service shares. */
  consumer: string;
  /**
   * How long a delivered job may go without an ack or an in-progress ping before JetStream hands it
   * to another consumer. Workers ping every third of it while a handler runs.
   */
  ackWaitMs: number;
  /** Deliveries before JetStream gives up on a job. */
  maxDeliver: number;
  /** A repeated publish with the same id inside this window is dropped by the stream. */
  duplicateWindowMs: number;
  /**
   * The `Nats-Msg-Id` of a job: deterministic, so publishing the same job twice (a retry after a
   * lost publish acknowledgement, two replicas republishing it) stores it once.
   */
  messageId(payload: TPayload): string;
  /** Reads a delivered payload; throws when it is not one of this job's. */
  parse(data: unknown): TPayload;
}

export function defineJob<TPayload>(definition: JobDefinition<TPayload>): JobDefinition<TPayload> {
  if (definition.ackWaitMs < 1_000) throw new Error(`${definition.name}: ackWaitMs must be at least 1000`);
  if (definition.maxDeliver < 1) throw new Error(`${definition.name}: maxDeliver must be at least 1`);
  return definition;
}

/** What a handler decided about one delivery. */
export type JobOutcome =
  /** Done (or nothing left to do): remove the job from the work queue. */
  | { kind: 'ack' }
  /** Not now: deliver it again after `delayMs` (counts as a delivery). */
  | { kind: 'retry'; delayMs: number }
  /** Never deliver it again. */
  | { kind: 'drop'; reason: string };

export const JobOutcomes = {
  ack: { kind: 'ack' } as JobOutcome,
  retry: (delayMs: number): JobOutcome => ({ kind: 'retry', delayMs }),
  drop: (reason: string): JobOutcome => ({ kind: 'drop', reason }),
};

export interface JobDelivery {
  /** 1 for the first delivery. */
  deliveryCount: number;
  /** True when JetStream will not deliver the job again after this one. */
  lastDelivery: boolean;
  /** Aborted when the worker stops (shutdown) while the handler runs. */
  signal: AbortSignal;
}

export type JobHandler<TPayload> = (payload: TPayload, delivery: JobDelivery) => Promise<JobOutcome>;
