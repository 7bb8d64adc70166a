import { randomUUID } from 'node:crypto';

import { currentRequestId, DomainException, isErrorCode } from '#common';
import {
  type AgentChatRequest,
  AgentSubjects,
  type AssistantTurnRequest,
  CHAT_STREAM_HEARTBEAT_MS,
  CHAT_STREAM_SILENCE_MS,
  CHAT_TURN_TIMEOUT_MS,
  type ChatControlKind,
  type ChatOpened,
  ChatStreamHeaders,
  type Principal,
  REQUEST_ID_HEADER,
  type RpcErrorBody,
} from '#contracts';
import { connectNats, inboxPrefixOf, type NatsEndpoint } from '#nats';
import type { OnApplicationShutdown, Provider } from '@nestjs/common';
import { createInbox, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';

/** Past the agent's own limit on a turn, the gateway gives up on a replica that never ends it. */
const TURN_DEADLINE_MS = CHAT_TURN_TIMEOUT_MS + 60_000;

/** A turn the agent service opened: its thread, and the JSON text of each UI message chunk. */
export interface ChatTurnStream {
  threadId: string;
  /** Ends after the turn; a failure on the way arrives as a last chunk of type `error`. */
  chunks: AsyncIterable<string>;
  /** The client went away: the agent stops the model. Nothing happens once the turn ended. */
  cancel(): void;
}

/** Items handed from NATS callbacks to one reader, in order. */
class Queue implements AsyncIterable<string> {
  private readonly items: string[] = [];
  private ended = false;
  private wake?: () => void;

  push(item: string): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

const unavailable = (message: string) => new DomainException('service_unavailable', message);
const errorChunk = (errorText: string) => JSON.stringify({ type: 'error', errorText });

/**
 * The gateway's side of `AgentSubjects.chatStream` (described in `chat-stream.protocol.ts`): sends a
 * turn, waits until a replica opens or refuses it, then hands on its chunks while telling the replica
 * it still listens. It has a NATS connection of its own, so streamed answers never queue up behind
 * the small replies of other routes.
 */
export class AgentChatClient implements OnApplicationShutdown {
  constructor(readonly nats: NatsConnection) {}

  static provider(endpoint: NatsEndpoint): Provider {
    return {
      provide: AgentChatClient,
      useFactory: async () => new AgentChatClient(await connectNats(endpoint, 'gateway-chat')),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }

  /** Answers once the turn is open, or throws the DomainException the agent service refused it with. */
  open(principal: Principal, request: AgentChatRequest): Promise<ChatTurnStream> {
    return this.openOn(AgentSubjects.chatStream.name, principal, request);
  }

  /** A turn of the workflow assistant, over the same protocol. */
  openAssistant(principal: Principal, request: AssistantTurnRequest): Promise<ChatTurnStream> {
    return this.openOn(AgentSubjects.assistantStream.name, principal, request);
  }

  private openOn(subject: string, principal: Principal, request: object): Promise<ChatTurnStream> {
    const inbox = createInbox(inboxPrefixOf('gateway'));
    const chunks = new Queue();
    return new Promise<ChatTurnStream>((resolve, reject) => {
      let control: string | undefined;
      let seq = 0;
      let parts: Uint8Array[] = [];
      let done = false;
      let silence: NodeJS.Timeout | undefined;
      let listening: NodeJS.Timeout | undefined;
      const close = () => {
        done = true;
        clearTimeout(silence);
        clearTimeout(deadline);
        clearInterval(listening);
        subscription.unsubscribe();
        chunks.end();
      };
      const fail = (error: DomainException) => {
        if (done) return;
        if (control === undefined) reject(error);
        else chunks.push(errorChunk(error.message));
        close();
      };
      const tell = (kind: ChatControlKind) => {
        if (control === undefined) return;
        const headers = natsHeaders();
        headers.set(ChatStreamHeaders.kind, kind);
        this.nats.publish(control, new Uint8Array(0), { headers });
      };
      const heard = () => {
        clearTimeout(silence);
        // A replica that stops its heartbeat died with the turn.
        silence = setTimeout(
          () => fail(unavailable('The agent service stopped answering. Send the message again.')),
          CHAT_STREAM_SILENCE_MS,
        );
      };
      const onMessage = (message: Msg) => {
        if (message.headers?.code === 503) {
          return fail(unavailable('No agent service is answering right now. Try again shortly.'));
        }
        heard();
        const kind = message.headers?.get(ChatStreamHeaders.kind);
        if (kind === 'working') return;
        if (kind === 'error' && control === undefined) {
          return fail(errorOf(message.data) ?? unavailable('The agent service refused the message.'));
        }
        if (Number(message.headers?.get(ChatStreamHeaders.seq)) !== seq) {
          return fail(unavailable('Part of the answer was lost on its way. Send the message again.'));
        }
        seq += 1;
        if (kind === 'open' && control === undefined) {
          control = message.headers?.get(ChatStreamHeaders.control) || undefined;
          const opened = JSON.parse(Buffer.from(message.data).toString('utf8')) as ChatOpened;
          if (!control) return fail(unavailable('The agent service opened the chat without a way back.'));
          listening = setInterval(() => tell('listening'), CHAT_STREAM_HEARTBEAT_MS);
          resolve({
            threadId: opened.threadId,
            chunks,
            cancel: () => {
              if (done) return;
              tell('cancel');
              close();
            },
          });
          return;
        }
        if (kind === 'chunk' && control !== undefined) {
          parts.push(message.data);
          if (message.headers?.has(ChatStreamHeaders.more)) return;
          chunks.push(Buffer.concat(parts).toString('utf8'));
          parts = [];
          return;
        }
        if (kind === 'end' && control !== undefined) return close();
        fail(unavailable('The agent service answered out of turn.'));
      };
      const subscription = this.nats.subscribe(inbox, {
        callback: (error, message) => {
          if (done) return;
          if (error) return fail(unavailable('The answer of the agent service was lost.'));
          try {
            onMessage(message);
          } catch {
            fail(unavailable('The agent service answered something unreadable.'));
          }
        },
      });
      const deadline = setTimeout(
        () => fail(unavailable('The agent service did not finish the answer in time.')),
        TURN_DEADLINE_MS,
      );
      heard();
      const headers = natsHeaders();
      headers.set(REQUEST_ID_HEADER, currentRequestId() ?? randomUUID());
      try {
        this.nats.publish(subject, JSON.stringify({ principal, data: request }), {
          reply: inbox,
          headers,
        });
      } catch (error) {
        fail(unavailable(`The message could not be sent to the agent service: ${String(error)}`));
      }
    });
  }
}

function errorOf(data: Uint8Array): DomainException | null {
  try {
    const body = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<RpcErrorBody>;
    if (typeof body.code !== 'string' || typeof body.message !== 'string') return null;
    return new DomainException(isErrorCode(body.code) ? body.code : 'internal', body.message, body.details);
  } catch {
    return null;
  }
}
