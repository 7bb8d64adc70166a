import { randomUUID } from 'node:crypto';

import { DomainException, requestContext } from '#common';
import {
  DatabaseSubjects,
  IdAndBodyOf,
  QUERY_STREAM_HEARTBEAT_MS,
  QueryRequestDto,
  QueryStreamHeaders,
  queryStreamPartBytes,
  QueueGroups,
  REQUEST_ID_HEADER,
  type RpcErrorBody,
  shardSubject,
} from '#contracts';
import { MalformedMessageException, natsServerSpan, readPrincipal, validateAs } from '#nats';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { LOGGER, NATS_CONNECTION, SHARD } from '../database.tokens.js';
import { DEADLINE_HEADER, ShardClient } from '../shards/shard.client.js';
import { QueryService } from './query.service.js';

/** The gateway's route body, `{id, body}`, checked like any catalog subject's request. */
const QueryStreamRequest = IdAndBodyOf(QueryRequestDto);

/** A request may be as large as the gateway accepts a body, with room for the principal. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/** An upload whose next part does not come within this is dropped. */
const UPLOAD_IDLE_MS = 30_000;

interface Upload {
  parts: Buffer[];
  received: number;
  total: number;
  requestId: string;
  deadline: number | undefined;
  expiresAt: number;
}

/**
 * Serves `DatabaseSubjects.queryStream`: the query route's request and answer in parts of any size
 * (the protocol is described in `query-stream.protocol.ts`). Requests arrive in the service's queue
 * group; the later parts of a large request come to a subject of this replica's own. A batch for a
 * database another shard holds is relayed there, by the same protocol on that shard's subject
 * (`database.shard.<k>.query-stream`), and its answer relayed back: the caller keeps hearing this
 * replica's heartbeat, and this replica answers 503 when the other one goes silent.
 */
@Injectable()
export class QueryStreamServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly replicaSubject = `${DatabaseSubjects.queryStream.name}.${randomUUID().replace(/-/g, '')}`;
  private readonly shardSubject: string;
  private readonly uploads = new Map<string, Upload>();
  private subscriptions: Subscription[] = [];
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly queries: QueryService,
    private readonly peers: ShardClient,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(SHARD) shard: number,
  ) {
    this.shardSubject = shardSubject(shard, 'query-stream');
  }

  onApplicationBootstrap(): void {
    this.subscriptions = [
      this.nats.subscribe(DatabaseSubjects.queryStream.name, {
        queue: QueueGroups.database,
        callback: (error, message) => {
          if (!error) this.onRequest(message);
        },
      }),
      this.nats.subscribe(`${this.replicaSubject}.*`, {
        callback: (error, message) => {
          if (!error) this.onPart(message);
        },
      }),
      // Batches relayed by other replicas: only this replica listens, so no queue group.
      this.nats.subscribe(this.shardSubject, {
        callback: (error, message) => {
          if (!error) this.onRequest(message, this.shardSubject);
        },
      }),
      this.nats.subscribe(`${this.shardSubject}.*`, {
        callback: (error, message) => {
          if (!error) this.onPart(message);
        },
      }),
    ];
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [id, upload] of this.uploads) if (upload.expiresAt < now) this.uploads.delete(id);
    }, UPLOAD_IDLE_MS);
    this.sweeper.unref();
  }

  /** Takes no new requests; batches already running finish and answer. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.subscriptions.map((subscription) => subscription.drain()));
  }

  private get partBytes(): number {
    return queryStreamPartBytes(this.nats.info?.max_payload ?? 1024 * 1024);
  }

  /** `continuePrefix`: where the later parts go, a subject the caller may publish to. */
  private onRequest(message: Msg, continuePrefix = this.replicaSubject): void {
    const reply = message.reply;
    if (!reply) return;
    const requestId = message.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    const relayedDeadline = Number(message.headers?.get(DEADLINE_HEADER));
    const deadline =
      continuePrefix === this.shardSubject && Number.isSafeInteger(relayedDeadline)
        ? relayedDeadline
        : undefined;
    const total = Number(message.headers?.get(QueryStreamHeaders.total) ?? message.data.length);
    if (!Number.isSafeInteger(total) || total < message.data.length) {
      this.answerError(
        reply,
        DomainException.invalidRequest(
          [{ path: 'body', message: `${QueryStreamHeaders.total} does not give the length of the request.` }],
          'The request parts do not add up.',
        ),
      );
      return;
    }
    if (total > MAX_REQUEST_BYTES) {
      this.answerError(reply, new DomainException('payload_too_large', 'The query batch is too large.'));
      return;
    }
    if (message.data.length === total) {
      void this.execute(Buffer.from(message.data), reply, requestId, deadline, message.headers);
      return;
    }
    const uploadId = randomUUID().replace(/-/g, '');
    this.uploads.set(uploadId, {
      parts: [Buffer.from(message.data)],
      received: message.data.length,
      total,
      requestId,
      deadline,
      expiresAt: Date.now() + UPLOAD_IDLE_MS,
    });
    const headers = natsHeaders();
    headers.set(QueryStreamHeaders.continueTo, `${continuePrefix}.${uploadId}`);
    message.respond(new Uint8Array(0), { headers });
  }

  private onPart(message: Msg): void {
    const reply = message.reply;
    if (!reply) return;
    const uploadId = message.subject.slice(message.subject.lastIndexOf('.') + 1);
    const upload = this.uploads.get(uploadId);
    const offset = Number(message.headers?.get(QueryStreamHeaders.offset));
    if (!upload || offset !== upload.received || upload.received + message.data.length > upload.total) {
      this.uploads.delete(uploadId);
      this.answerError(
        reply,
        new DomainException('service_unavailable', 'The request was interrupted on its way. Try again.'),
      );
      return;
    }
    upload.parts.push(Buffer.from(message.data));
    upload.received += message.data.length;
    upload.expiresAt = Date.now() + UPLOAD_IDLE_MS;
    if (upload.received < upload.total) {
      const headers = natsHeaders();
      headers.set(QueryStreamHeaders.ack, String(upload.received));
      message.respond(new Uint8Array(0), { headers });
      return;
    }
    this.uploads.delete(uploadId);
    void this.execute(Buffer.concat(upload.parts), reply, upload.requestId, upload.deadline, message.headers);
  }

  private execute(
    request: Buffer,
    reply: string,
    requestId: string,
    deadline: number | undefined,
    headers: MsgHdrs | undefined,
  ): Promise<void> {
    const subject = DatabaseSubjects.queryStream.bare;
    return requestContext.run({ requestId }, () =>
      natsServerSpan(subject, 'database', headers, async () => {
        const heartbeat = setInterval(() => {
          const headers = natsHeaders();
          headers.set(QueryStreamHeaders.working, '1');
          this.nats.publish(reply, new Uint8Array(0), { headers });
        }, QUERY_STREAM_HEARTBEAT_MS);
        try {
          const packet = JSON.parse(request.toString('utf8')) as { principal?: unknown; data?: unknown };
          const principal = readPrincipal(DatabaseSubjects.queryStream.bare, packet.principal);
          const checked = validateAs(QueryStreamRequest, packet.data, '');
          if (checked.value === undefined) {
            throw new MalformedMessageException(DatabaseSubjects.queryStream.bare, checked.issues);
          }
          const { id, body } = checked.value;
          const relay = async (shard: number, batchDeadline: number) =>
            (await this.peers.queryStream(shard, request, batchDeadline)).toString('utf8');
          const text = await this.queries.run(principal, id, body, Number.POSITIVE_INFINITY, relay, deadline);
          clearInterval(heartbeat);
          this.send(reply, 'ok', Buffer.from(text, 'utf8'));
        } catch (error) {
          clearInterval(heartbeat);
          this.answerError(reply, error);
        }
      }),
    );
  }

  private answerError(reply: string, error: unknown): void {
    this.send(reply, 'error', Buffer.from(JSON.stringify(this.errorBody(error)), 'utf8'));
  }

  /** Same answer as the request/reply subjects give: the contract's code, or an opaque internal error. */
  private errorBody(error: unknown): RpcErrorBody {
    if (error instanceof DomainException) {
      return {
        status: error.status,
        code: error.code,
        message: error.message,
        ...(error.details === undefined ? {} : { details: error.details }),
      };
    }
    if (error instanceof SyntaxError) {
      return {
        status: 400,
        code: 'invalid_request',
        message: 'The request is not valid JSON.',
        details: { issues: [{ path: 'body', message: error.message }] },
      };
    }
    const errorId = randomUUID();
    this.logger.error({ err: error, errorId }, 'unexpected error in query stream');
    return {
      status: 500,
      code: 'internal',
      message: `Something went wrong on our side (error id ${errorId}).`,
    };
  }

  private send(reply: string, status: 'ok' | 'error', body: Buffer): void {
    const size = this.partBytes;
    const parts = Math.max(1, Math.ceil(body.length / size));
    for (let part = 0; part < parts; part += 1) {
      const headers = natsHeaders();
      headers.set(QueryStreamHeaders.part, String(part));
      if (part === 0) {
        headers.set(QueryStreamHeaders.status, status);
        headers.set(QueryStreamHeaders.total, String(body.length));
      }
      this.nats.publish(reply, body.subarray(part * size, (part + 1) * size), { headers });
    }
  }
}
