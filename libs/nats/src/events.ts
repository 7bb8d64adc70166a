import type { EventSubject } from '#contracts';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/** A key of a keyed event is one subject token: no dots, wildcards or whitespace, never empty. */
export const isSubjectToken = (key: string): boolean => /^[^.*>\s]+$/.test(key);

/** Listens to every key of a keyed event (`….run-cancelled.*`): what its listeners' permissions allow. */
export const EVERY_KEY = '*';

function subjectOf(entry: EventSubject<unknown>, key: string | undefined, everyKey = false): string {
  if (!entry.keyed) return entry.name;
  if (everyKey && key === EVERY_KEY) return `${entry.name}.${EVERY_KEY}`;
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
 * Listens to a notification (of one key, or of every key with `EVERY_KEY`, for a keyed one); a
 * message that is not JSON is ignored, since nothing depends on one. The payload is what the
 * publisher sent, unchecked: a listener that acts on it checks its fields.
 */
export function subscribeEvent<TPayload>(
  connection: NatsConnection,
  entry: EventSubject<TPayload>,
  listener: (payload: TPayload) => void,
  key?: string,
): Subscription {
  return connection.subscribe(subjectOf(entry, key, true), {
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
