import { EventJobsStream, type EventJob } from '#contracts';
import { defineJob, type JobDefinition } from '#nats';

export interface EventJobSettings {
  maxDeliver: number;
}

/**
 * Event jobs: "fan this stored event out" (`event:<eventId>`, or `event:<eventId>:<sweep>` when the
 * sweeper queues it again) and "replay it for one trigger" (`replay:<replayId>`).
 */
export function eventJob({ maxDeliver }: EventJobSettings): JobDefinition<EventJob> {
  return defineJob<EventJob>({
    name: 'event',
    stream: EventJobsStream.stream,
    subject: EventJobsStream.subject,
    consumer: EventJobsStream.consumer,
    ackWaitMs: 30_000,
    maxDeliver,
    duplicateWindowMs: 10 * 60_000,
    messageId: (job) =>
      job.replayId !== undefined
        ? `replay:${job.replayId}`
        : `event:${job.eventId}${job.sweep ? `:${job.sweep}` : ''}`,
    parse: (data) => {
      const job = data as Partial<EventJob> | null;
      if (typeof job?.eventId !== 'string') throw new Error('not an event job');
      if (
        job.replayId !== undefined &&
        (typeof job.workflowId !== 'string' || typeof job.triggerNodeId !== 'string')
      ) {
        throw new Error('a replay names its workflow and trigger');
      }
      return job as EventJob;
    },
  });
}
