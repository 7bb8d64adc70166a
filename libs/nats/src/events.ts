import type { EventSubject } from '#contracts';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/** Publishes a notification of the catalog: fire and forget, on core NATS. */
export function publishEvent<TPayload>(
  connection: NatsConnection,
  entry: EventSubject<TPayload>,
  payload: TPayload,
): void {
  connection.publish(entry.name, JSON.stringify(payload));
}

/** Listens to a notification; a message that is not JSON is ignored, since nothing depends on one. */
export function subscribeEvent<TPayload>(
  connection: NatsConnection,
  entry: EventSubject<TPayload>,
  listener: (payload: TPayload) => void,
): Subscription {
  return connection.subscribe(entry.name, {
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
