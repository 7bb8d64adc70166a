/** Injection tokens of values the module builds from its configuration. */
export { NATS_CONNECTION } from '#nats';
export const LOGGER = Symbol('LOGGER');
export const QUERY_SETTINGS = Symbol('QUERY_SETTINGS');
/** This replica's shard number (docs/databases.md, "Scaling out"). */
export const SHARD = Symbol('SHARD');
/** How long this service waits for its peers and catalog (`RPC_TIMEOUT_MS`). */
export const RPC_TIMEOUT_MS = Symbol('RPC_TIMEOUT_MS');

export interface QuerySettings {
  statementTimeoutMs: number;
  batchTimeoutMs: number;
  resultLimitBytes: number;
  batchesPerOrganization: number;
  batchesWaitingPerOrganization: number;
}
