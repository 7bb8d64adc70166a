/**
 * `DatabaseSubjects.queryStream` carries a query batch and its answer in as many NATS messages as
 * they need: a batch may hold 100 statements of 100,000 characters and its rows may reach 16 MiB,
 * while one NATS message is limited to the server's `max_payload` (1 MiB by default).
 *
 * Request: the UTF-8 JSON of `{principal, data: QueryRequest}` is cut into parts. The first part goes
 * to `queryStream` (queue group: any replica) with `Fm-Total` set to the whole length in bytes. When
 * more parts follow, the replica answers one message with `Fm-Continue` naming a subject of its own;
 * each further part is a request to that subject with `Fm-Offset`, acknowledged with `Fm-Ack`,
 * except the part that completes the request, which is answered with the reply.
 *
 * Reply: the UTF-8 JSON of a `QueryResponse` (`Fm-Status: ok`) or of an `RpcErrorBody`
 * (`Fm-Status: error`), cut into parts sent in order to the reply subject. Every part carries
 * `Fm-Part` (0, 1, …); the first also carries `Fm-Status` and `Fm-Total`. While the batch runs, the
 * replica sends an empty `Fm-Working` message every `QUERY_STREAM_HEARTBEAT_MS`, so a caller learns
 * within seconds, not at its timeout, that a replica died with its batch (which then rolled back).
 */
export const QueryStreamHeaders = {
  total: 'Fm-Total',
  offset: 'Fm-Offset',
  continueTo: 'Fm-Continue',
  ack: 'Fm-Ack',
  part: 'Fm-Part',
  status: 'Fm-Status',
  working: 'Fm-Working',
} as const;

export const QUERY_STREAM_HEARTBEAT_MS = 2_000;

/** A caller that hears nothing for this long takes the replica for dead. */
export const QUERY_STREAM_SILENCE_MS = 5 * QUERY_STREAM_HEARTBEAT_MS;

/** Room left in each message for headers and the protocol line. */
export const QUERY_STREAM_HEADROOM_BYTES = 8 * 1024;

/** The size of each part for a server that accepts `maxPayload` bytes per message. */
export function queryStreamPartBytes(maxPayload: number): number {
  return Math.max(4 * 1024, maxPayload - QUERY_STREAM_HEADROOM_BYTES);
}
