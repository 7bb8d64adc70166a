import { connect, type NatsConnection } from '@nats-io/transport-node';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: url,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // nats.js otherwise builds an Error with a stack trace for every request, in case it times out:
    // a measurable share of the gateway's CPU. Our errors name the subject instead.
    noAsyncTraces: true,
  });
}
