import { createLogger } from '#common';
import type { NatsIdentity } from '#contracts';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';

import { inboxPrefixOf, passwordVariableOf } from './permissions/nats-permissions.js';

/** Where an app reaches NATS, and as whom. Without a password it connects anonymously (development). */
export interface NatsEndpoint {
  url: string;
  identity: NatsIdentity;
  password?: string;
}

const warned = new Set<NatsIdentity>();

/** What keeps an app's NATS connection from being fit for production, for `refuseUnsafeProduction`. */
export function natsProductionProblems({ identity, password }: NatsEndpoint): string[] {
  return password === undefined
    ? [
        `set ${passwordVariableOf(identity)}: without it ${identity} connects to NATS anonymously, and anything that reaches NATS can act as any organization (npm run nats -- passwords)`,
      ]
    : [];
}

/** The options every connection of an identity shares, the RPC server's included. */
export function natsConnectionOptions({ url, identity, password }: NatsEndpoint): ConnectionOptions {
  if (password === undefined && !warned.has(identity)) {
    warned.add(identity);
    createLogger(identity).warn(
      `NATS: ${passwordVariableOf(identity)} is not set, so ${identity} connects WITHOUT authentication. ` +
        'Anything that reaches this NATS server can act as any organization: acceptable on a developer ' +
        'machine only. Run NATS with the rendered permissions in production (see docs/architecture.md).',
    );
  }
  return {
    // A cluster's nodes are listed with commas, as NATS's own tools take them.
    servers: url.split(',').map((server) => server.trim()),
    inboxPrefix: inboxPrefixOf(identity),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    ...(password === undefined ? {} : { user: identity, pass: password }),
  };
}

export async function connectNats(endpoint: NatsEndpoint, name: string): Promise<NatsConnection> {
  return connect({
    ...natsConnectionOptions(endpoint),
    name,
    // nats.js otherwise builds an Error with a stack trace for every request, in case it times out:
    // a measurable share of the gateway's CPU. Our errors name the subject instead.
    noAsyncTraces: true,
  });
}
