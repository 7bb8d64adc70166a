/** Injection tokens of values the module builds from its configuration. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const LOGGER = Symbol('LOGGER');
export const QUERY_SETTINGS = Symbol('QUERY_SETTINGS');

export interface QuerySettings {
  statementTimeoutMs: number;
  batchTimeoutMs: number;
  resultLimitBytes: number;
}
