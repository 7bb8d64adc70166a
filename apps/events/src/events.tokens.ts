/** Injection tokens of values the module builds from its configuration. */
export { NATS_CONNECTION } from '#nats';
export const LOGGER = Symbol('LOGGER');
