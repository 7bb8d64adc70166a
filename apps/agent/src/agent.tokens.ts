/** Injection tokens of values the module builds from its configuration. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const LOGGER = Symbol('LOGGER');
