/** Injection tokens of values that are not classes. */
export const RUNNER_LOGGER = Symbol('RUNNER_LOGGER');
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
