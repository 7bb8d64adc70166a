import { randomUUID } from 'node:crypto';

import { currentRequestId, DomainException, isErrorCode } from '#common';
import { REQUEST_ID_HEADER, type Principal, type RpcEnvelope } from '#contracts';
import { errors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';

export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

interface NestPacketReply {
  err?: unknown;
  response?: unknown;
}

/**
 * Request/reply over core NATS, in the packet format Nest's NATS server speaks. nats.js's own
 * `request` shares one inbox subscription across requests and knows "no responders", which Nest's
 * client (one subscription per request, no timeout) does not.
 */
export class RpcClient {
  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
  ) {}

  /** Sends `data` for `principal` and answers the reply's `data`, or throws its DomainException. */
  async request<T>(
    subject: string,
    principal: Principal | null,
    data: unknown,
    timeoutMs?: number,
  ): Promise<T> {
    const envelope = await this.requestEnvelope<T>(subject, { principal, data }, timeoutMs);
    if (envelope.ok) return envelope.data;
    const { code, message, details } = envelope.error;
    throw new DomainException(isErrorCode(code) ? code : 'internal', message, details);
  }

  /** For callers with no principal: admin commands and service-to-service checks. */
  async requestEnvelope<T>(
    subject: string,
    payload: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<RpcEnvelope<T>> {
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, currentRequestId() ?? randomUUID());
    const packet = JSON.stringify({ pattern: subject, data: payload, id: randomUUID() });
    let reply: NestPacketReply;
    try {
      const message = await this.connection.request(subject, packet, { timeout: timeoutMs, headers });
      reply = message.json<NestPacketReply>();
    } catch (error) {
      throw toUnavailable(subject, error);
    }
    if (reply.err !== undefined && reply.err !== null) {
      throw new DomainException('internal', 'The service failed to answer.');
    }
    return reply.response as RpcEnvelope<T>;
  }
}

function toUnavailable(subject: string, error: unknown): DomainException {
  if (
    error instanceof errors.NoRespondersError ||
    (error instanceof Error && /no responders/i.test(error.message))
  ) {
    return new DomainException(
      'service_unavailable',
      `No service is answering ${subject} right now. Try again shortly.`,
    );
  }
  if (error instanceof errors.TimeoutError || (error instanceof Error && /timeout/i.test(error.message))) {
    return new DomainException(
      'service_unavailable',
      `The service behind ${subject} did not answer in time.`,
    );
  }
  return new DomainException('internal', 'The message bus failed to carry the request.');
}
