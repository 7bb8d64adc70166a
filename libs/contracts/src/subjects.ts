/**
 * Subject and stream names. A prefix (NATS_SUBJECT_PREFIX) lets a second environment share one NATS
 * server without its messages reaching anyone else's services. Decorators read subject names at
 * import time, so the prefix comes from the environment, not from DI.
 */
const prefix = process.env.NATS_SUBJECT_PREFIX ?? '';

export const subject = (name: string): string => `${prefix}${name}`;

/** JetStream stream names may not contain dots, so the prefix is folded into a name-safe form. */
export const streamNameFor = (name: string, subjectPrefix: string): string =>
  `${subjectPrefix.replace(/[^A-Za-z0-9_-]/g, '_')}${name}`;

export const streamName = (name: string): string => streamNameFor(name, prefix);

export const QueueGroups = {
  catalog: subject('catalog'),
  workflow: subject('workflow'),
  runner: subject('runner'),
  database: subject('database'),
  events: subject('events'),
  agent: subject('agent'),
} as const;
