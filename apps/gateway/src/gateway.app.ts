import type { AppEntry } from '#nats';

const gateway = {
  name: 'gateway',
  // Imported on start, so that a process without the gateway loads none of it.
  start: async (options) => (await import('./gateway.server.js')).startGateway(options),
} satisfies AppEntry;

export default gateway;
