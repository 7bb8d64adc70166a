/** Injection tokens of values that are not classes. */
export const RUNNER_LOGGER = Symbol('RUNNER_LOGGER');
export { NATS_CONNECTION } from '#nats';
