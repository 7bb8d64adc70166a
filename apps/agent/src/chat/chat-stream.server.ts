import { randomUUID } from 'node:crypto';

import { DomainException, requestContext } from '#common';
import {
  type AgentChatRequest,
  AgentSubjects,
  type AssistantTurnRequest,
  CHAT_STREAM_HEARTBEAT_MS,
  CHAT_STREAM_SILENCE_MS,
  type ChatOpened,
  ChatStreamHeaders,
  type ChatStreamKind,
  type Principal,
  queryStreamPartBytes,
  QueueGroups,
  REQUEST_ID_HEADER,
  type RpcErrorBody,
  type UiMessageChunk,
} from '#contracts';
import { MalformedMessageException, readPrincipal, validateAs } from '#nats';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  headers as natsHeaders,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { LOGGER, NATS_CONNECTION } from '../agent.tokens.js';
import { Assistant } from '../assistant/assistant.service.js';
import { AgentChat, type ChatTurn } from './agent-chat.service.js';

/** A streamed subject this server answers, and how it starts a turn. */
interface TurnSubject {
  subject: typeof AgentSubjects.chatStream | typeof AgentSubjects.assistantStream;
  start(principal: Principal, data: unknown, signal: AbortSignal): Promise<ChatTurn>;
}

/** On shutdown, turns under way get this long to finish before they are stopped. */
const SHUTDOWN_GRACE_MS = 20_000;

interface LiveTurn {
  /** The caller said it still listens. */
  heard(): void;
  /** The caller went away: stop the model, send nothing more. */
  leave(): void;
  /** This replica is going away: stop the model, tell the caller. */
  stop(): void;
  ended: Promise<void>;
}

/** Sends one turn's messages to the caller's reply subject, numbered, cut to the server's payload. */
class ChatReply {
  private seq = 0;

  constructor(
    private readonly nats: NatsConnection,
    private readonly subject: string,
  ) {}

  working(): void {
    this.send('working', new Uint8Array(0), false);
  }

  error(body: RpcErrorBody): void {
    this.send('error', Buffer.from(JSON.stringify(body), 'utf8'), false);
  }

  open(opened: ChatOpened, control: string): void {
    this.send('open', Buffer.from(JSON.stringify(opened), 'utf8'), true, {
      [ChatStreamHeaders.control]: control,
    });
  }

  chunk(chunk: UiMessageChunk): void {
    const body = Buffer.from(JSON.stringify(chunk), 'utf8');
    const size = queryStreamPartBytes(this.nats.info?.max_payload ?? 1024 * 1024);
    for (let offset = 0; offset < body.length; offset += size) {
      const more = offset + size < body.length;
      this.send(
        'chunk',
        body.subarray(offset, offset + size),
        true,
        more ? { [ChatStreamHeaders.more]: '1' } : {},
      );
    }
  }

  end(): void {
    this.send('end', new Uint8Array(0), true);
  }

  private send(
    kind: ChatStreamKind,
    body: Uint8Array,
    numbered: boolean,
    extra: Record<string, string> = {},
  ): void {
    const headers = natsHeaders();
    headers.set(ChatStreamHeaders.kind, kind);
    if (numbered) headers.set(ChatStreamHeaders.seq, String(this.seq++));
    for (const [key, value] of Object.entries(extra)) headers.set(key, value);
    this.nats.publish(this.subject, body, { headers });
  }
}

/**
 * Serves `AgentSubjects.chatStream` and `AgentSubjects.assistantStream` (the protocol is described in
 * `chat-stream.protocol.ts`): takes a turn from the queue group, streams its chunks to the caller with heartbeats, and listens on a
 * subject of this replica's own for the caller's heartbeats and its cancel.
 */
@Injectable()
export class ChatStreamServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly replicaSubject = `${AgentSubjects.chatStream.name}.${randomUUID().replace(/-/g, '')}`;
  private readonly turns = new Map<string, LiveTurn>();
  private readonly subjects: TurnSubject[];
  private requests: Subscription[] = [];
  private controls?: Subscription;

  constructor(
    chat: AgentChat,
    assistant: Assistant,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.subjects = [
      {
        subject: AgentSubjects.chatStream,
        start: (principal, data, signal) => chat.start(principal, data as AgentChatRequest, signal),
      },
      {
        subject: AgentSubjects.assistantStream,
        start: (principal, data, signal) => assistant.start(principal, data as AssistantTurnRequest, signal),
      },
    ];
  }

  onApplicationBootstrap(): void {
    this.requests = this.subjects.map((turns) =>
      this.nats.subscribe(turns.subject.name, {
        queue: QueueGroups.agent,
        callback: (error, message) => {
          if (!error) this.onRequest(turns, message);
        },
      }),
    );
    this.controls = this.nats.subscribe(`${this.replicaSubject}.*`, {
      callback: (error, message) => {
        if (!error) this.onControl(message);
      },
    });
  }

  /** Takes no new turns; those under way get a grace period, then stop and tell their callers why. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.requests.map((requests) => requests.drain()));
    const ended = Promise.all([...this.turns.values()].map((turn) => turn.ended));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
    await Promise.race([ended, grace]);
    clearTimeout(timer);
    for (const turn of this.turns.values()) turn.stop();
    await ended;
    await this.controls?.drain();
  }

  private onRequest(turns: TurnSubject, message: Msg): void {
    const reply = message.reply;
    if (!reply) return;
    const requestId = message.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    void requestContext.run({ requestId }, () => this.serve(turns, message.data, reply));
  }

  private onControl(message: Msg): void {
    const turn = this.turns.get(message.subject.slice(this.replicaSubject.length + 1));
    if (message.headers?.get(ChatStreamHeaders.kind) === 'cancel') turn?.leave();
    else turn?.heard();
  }

  private async serve(
    { subject: turns, start }: TurnSubject,
    data: Uint8Array,
    subject: string,
  ): Promise<void> {
    const reply = new ChatReply(this.nats, subject);
    const turnId = randomUUID().replace(/-/g, '');
    const abort = new AbortController();
    let callerGone = false;
    let stopped = false;
    let silence: NodeJS.Timeout | undefined;
    const leave = () => {
      callerGone = true;
      abort.abort(new Error('the caller went away'));
    };
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(leave, CHAT_STREAM_SILENCE_MS);
    };
    let end = () => undefined as void;
    this.turns.set(turnId, {
      heard,
      leave,
      stop: () => {
        stopped = true;
        abort.abort(new Error('the agent service is shutting down'));
      },
      ended: new Promise<void>((resolve) => (end = resolve)),
    });
    const heartbeat = setInterval(() => reply.working(), CHAT_STREAM_HEARTBEAT_MS);
    let opened = false;
    try {
      const packet = JSON.parse(Buffer.from(data).toString('utf8')) as {
        principal?: unknown;
        data?: unknown;
      };
      const principal = readPrincipal(turns.bare, packet.principal);
      const checked = validateAs<object>(turns.request, packet.data, '');
      if (checked.value === undefined) {
        throw new MalformedMessageException(turns.bare, checked.issues);
      }
      const turn = await start(principal, checked.value, abort.signal);
      reply.open({ threadId: turn.threadId }, `${this.replicaSubject}.${turnId}`);
      opened = true;
      heard();
      // Read to the end even when nobody listens any more: the turn is saved after its last chunk.
      for await (const chunk of turn.chunks) if (!callerGone) reply.chunk(chunk);
      if (stopped && !callerGone) {
        reply.chunk({
          type: 'error',
          errorText: 'The agent service restarted and stopped this answer. Send the message again.',
        });
      }
      if (!callerGone) reply.end();
    } catch (error) {
      const body = this.errorBody(error);
      if (!opened) reply.error(body);
      else if (!callerGone) {
        reply.chunk({ type: 'error', errorText: body.message });
        reply.end();
      }
    } finally {
      clearInterval(heartbeat);
      clearTimeout(silence);
      this.turns.delete(turnId);
      end();
    }
  }

  /** The same answer as the request/reply subjects give: the contract's code, or an opaque internal error. */
  private errorBody(error: unknown): RpcErrorBody {
    if (error instanceof DomainException) {
      if (error instanceof MalformedMessageException) {
        this.logger.warn({ issues: error.details?.issues }, error.message);
      }
      return {
        status: error.status,
        code: error.code,
        message: error.message,
        ...(error.details === undefined ? {} : { details: error.details }),
      };
    }
    const errorId = randomUUID();
    this.logger.error({ err: error, errorId }, 'unexpected error in a chat turn');
    return {
      status: 500,
      code: 'internal',
      message: `Something went wrong on our side (error id ${errorId}).`,
    };
  }
}
