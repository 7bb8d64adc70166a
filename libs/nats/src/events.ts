import type { EventSubject } from '#contracts';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/** A key of a keyed event is one subject token: no dots, wildcards or whitespace, never empty. */
export const isSubjectToken = (key: string): boolean => /^[^.*>\s]+$/.test(key);

function subjectOf(entry: EventSubject<unknown>, key: string | undefined): string {
  if (!entry.keyed) return entry.name;
  if (key === undefined || !isSubjectToken(key)) {
    throw new Error(`${entry.bare} is keyed: ${JSON.stringify(key)} is not one subject token`);
  }
  return `${entry.name}.${key}`;
}

/** Publishes a notification of the catalog: fire and forget, on core NATS. A keyed one names its key. */
export function publishEvent<TPayload>(
  connection: NatsConnection,
  entry: EventSubject<TPayload>,
  payload: TPayload,
  key?: string,
): void {
  connection.publish(subjectOf(entry, key), JSON.stringify(payload));
}

/**
 * Listens to a notification (of one key, for a keyed one); a message that is not JSON is ignored,
 * since nothing depends on one.
 */
export function subscribeEvent<TPayload>(
  connection: NatsConnection,
  entry: EventSubject<TPayload>,
  listener: (payload: TPayload) => void,
  key?: string,
): Subscription {
  return connection.subscribe(subjectOf(entry, key), {
    callback: (error, message) => {
      if (error) return;
      let payload: TPayload;
      try {
        payload = (message.data.length === 0 ? {} : message.json()) as TPayload;
      } catch {
        return;
      }
      listener(payload);
    },
  });
}
