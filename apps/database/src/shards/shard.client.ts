import { randomUUID } from 'node:crypto';

import { currentRequestId, DomainException, isErrorCode } from '#common';
import { type Principal, REQUEST_ID_HEADER, type RpcEnvelope, shardSubject } from '#contracts';
import { injectTraceHeaders, natsClientSpan, QueryStreamClient } from '#nats';
import { Inject, Injectable } from '@nestjs/common';
import { errors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';

import { NATS_CONNECTION } from '../database.tokens.js';

/** What a forwarded request carries besides the caller's `{principal, data}`. */
export interface ForwardedPacket {
  principal: Principal | null;
  data: unknown;
  /** The batch's deadline (epoch ms) where it was first received: a hop does not restart the clock. */
  deadline?: number;
}

/** Header of a relayed query stream: its deadline where it was first received. */
export const DEADLINE_HEADER = 'Fm-Deadline';

/** The replica holding the database is not subscribed: it is down or restarting. */
export class ShardUnreachableError extends DomainException {
  constructor(readonly shard: number) {
    super(
      'service_unavailable',
      'The server holding this database is not answering right now (it may be restarting). Try again shortly.',
      // Nothing ran: a step may send the batch again (isUnserved).
      { unserved: true },
    );
  }
}

/**
 * Requests to one replica's own subjects (`database.shard.<k>.<verb>`), for requests that need the
 * database's file and for moving files. Answers are the RPC envelope, as on the shared subjects.
 */
@Injectable()
export class ShardClient {
  private readonly streams: QueryStreamClient;

  constructor(@Inject(NATS_CONNECTION) private readonly nats: NatsConnection) {
    this.streams = new QueryStreamClient(nats, 'database');
  }

  request<T>(shard: number, verb: string, packet: ForwardedPacket, timeoutMs: number): Promise<T> {
    return natsClientSpan(`database.shard.${verb}`, 'database', () =>
      this.send<T>(shard, verb, packet, timeoutMs),
    );
  }

  private async send<T>(shard: number, verb: string, packet: ForwardedPacket, timeoutMs: number): Promise<T> {
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, currentRequestId() ?? randomUUID());
    injectTraceHeaders(headers);
    let envelope: RpcEnvelope<T>;
    try {
      const reply = await this.nats.request(shardSubject(shard, verb), JSON.stringify(packet), {
        timeout: timeoutMs,
        headers,
      });
      envelope = reply.json<RpcEnvelope<T>>();
    } catch (error) {
      throw unavailable(shard, error);
    }
    if (envelope.ok) return envelope.data;
    const { code, message, details } = envelope.error;
    throw new DomainException(isErrorCode(code) ? code : 'internal', message, details);
  }

  /** Relays a query-stream request to the replica that holds the database; its answer as bytes. */
  async queryStream(shard: number, payload: Buffer, deadline: number): Promise<Buffer> {
    try {
      return await this.streams.send(shardSubject(shard, 'query-stream'), payload, {
        [DEADLINE_HEADER]: String(deadline),
      });
    } catch (error) {
      if (error instanceof DomainException && /No database service is answering/.test(error.message)) {
        throw new ShardUnreachableError(shard);
      }
      throw error;
    }
  }
}

function unavailable(shard: number, error: unknown): DomainException {
  if (
    error instanceof errors.NoRespondersError ||
    (error instanceof Error && /no responders/i.test(error.message))
  ) {
    return new ShardUnreachableError(shard);
  }
  if (error instanceof errors.TimeoutError || (error instanceof Error && /timeout/i.test(error.message))) {
    return new DomainException(
      'service_unavailable',
      'The server holding this database did not answer in time. A batch is applied completely or not at all: check which before you retry.',
    );
  }
  return new DomainException('internal', 'The message bus failed to carry the request.');
}
