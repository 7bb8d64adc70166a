import type { NatsConnection } from '@nats-io/transport-node';

const queued = new WeakMap<NatsConnection, Array<() => void>>();

/**
 * Runs `send`, which publishes on `connection`, once the current turn of the event loop has handled
 * its I/O, together with every other send queued for that connection in the same turn.
 *
 * nats.js writes its pending output to the socket at the next microtask checkpoint. Requests arrive
 * one per I/O callback (an HTTP request, a Postgres result), so each publish went out in its own
 * `write` syscall: on loopback that syscall also carries the receiver's TCP work, and it was the
 * largest single CPU cost of a request in both the gateway and the services (docs/benchmarks.md,
 * "Gateway"). Deferred to `setImmediate`, everything one turn produced shares one write, and the NATS
 * server one read. The delay is the rest of the current turn: nothing waits on a timer.
 *
 * `send` must not throw; a caller that can fail handles its own error inside it.
 */
export function sendBatched(connection: NatsConnection, send: () => void): void {
  const queue = queued.get(connection);
  if (queue) {
    queue.push(send);
    return;
  }
  queued.set(connection, [send]);
  setImmediate(() => {
    const sends = queued.get(connection) ?? [];
    queued.delete(connection);
    for (const each of sends) each();
  });
}
