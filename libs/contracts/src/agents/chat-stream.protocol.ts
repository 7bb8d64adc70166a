/**
 * `AgentSubjects.chatStream` carries one chat turn from the gateway to an agent replica, and the
 * answer back while the model produces it, as the AI SDK's UI message stream chunks.
 *
 * Request: the JSON of `{principal, data: AgentChatRequest}`, published to `chatStream` (queue group:
 * any replica) with a reply subject of the caller's. Every answer goes to that reply subject; the
 * header `Fm-Chat` names what each message is:
 * - `working`: empty, every `CHAT_STREAM_HEARTBEAT_MS` from the moment the replica takes the request,
 *   so a caller learns within seconds, not at a timeout, that the replica died;
 * - `error`: the turn was refused before it opened (an `RpcErrorBody`: agent_not_found, a provider
 *   that is not configured, …); nothing follows;
 * - `open`: the turn started; the body is `ChatOpened`, and `Fm-Control` names the subject the replica
 *   hears the caller on;
 * - `chunk`: the JSON of one UI message chunk. A chunk larger than a message is cut into parts: every
 *   part but the last carries `Fm-More`;
 * - `end`: the turn is over and saved to its thread; nothing follows.
 * `open`, `chunk` and `end` messages carry `Fm-Seq` (0, 1, …), so a lost message is noticed rather
 * than leaving a hole in the answer. A failure of the model after `open` is a chunk of type `error`.
 *
 * The caller sends the `Fm-Control` subject an empty `listening` message every
 * `CHAT_STREAM_HEARTBEAT_MS` while it still wants the answer, and `cancel` when its client went away.
 * A replica that is cancelled, or hears nothing for `CHAT_STREAM_SILENCE_MS`, aborts the model call.
 */
export const ChatStreamHeaders = {
  kind: 'Fm-Chat',
  seq: 'Fm-Seq',
  more: 'Fm-More',
  control: 'Fm-Control',
} as const;

/** What a replica sends the caller. */
export type ChatStreamKind = 'working' | 'error' | 'open' | 'chunk' | 'end';

/** What the caller sends the replica's control subject. */
export type ChatControlKind = 'listening' | 'cancel';

export const CHAT_STREAM_HEARTBEAT_MS = 2_000;

/** Either side that hears nothing from the other for this long takes it for gone. */
export const CHAT_STREAM_SILENCE_MS = 5 * CHAT_STREAM_HEARTBEAT_MS;

/** One turn may take this long in all, model calls and tools together; then the model call stops. */
export const CHAT_TURN_TIMEOUT_MS = 5 * 60_000;

/** The body of the `open` message. */
export interface ChatOpened {
  /** The thread the turn is saved to: the chat's own when it continues one, else a new one. */
  threadId: string;
}

/**
 * One chunk of the AI SDK's UI message stream (`UIMessageChunk` of `ai`): `start`, `text-delta`,
 * `tool-input-available`, `error`, `finish`, … The gateway passes them on without reading them.
 */
export interface UiMessageChunk {
  type: string;
  [field: string]: unknown;
}
