import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/**
 * Deletes the JetStream streams a test stack made. Stream names carry the stack's subject prefix made
 * name-safe (see `streamName` in contracts), so another run's or a dev instance's are never touched.
 */
export async function deleteStreams(natsUrl: string, subjectPrefix: string): Promise<void> {
  const namePrefix = subjectPrefix.replace(/[^A-Za-z0-9_-]/g, '_');
  if (namePrefix === '') return;
  const nats = await connect({ servers: natsUrl });
  try {
    const manager = await jetstreamManager(nats);
    for await (const stream of manager.streams.list()) {
      if (stream.config.name.startsWith(namePrefix)) await manager.streams.delete(stream.config.name);
    }
  } finally {
    await nats.close();
  }
}
