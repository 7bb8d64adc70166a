import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { currentRequestContext, currentRequestId, DomainException, isErrorCode } from '#common';
import {
  CLIENT_ADDRESS_HEADER,
  type Principal,
  REQUEST_ID_HEADER,
  type RpcEnvelope,
  type RpcSubject,
  USER_AGENT_HEADER,
  WORKING_SILENCE_MS,
} from '#contracts';
import { errors, type Msg, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';

import { observeRequest } from './metrics/nats.metrics.js';
import { ReplyInbox, ResponderLostError } from './reply-inbox.js';
import { sendBatched } from './send-batch.js';
import { injectTraceHeaders, natsClientSpan } from './trace-context.js';

export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

/** Where an organization's requests wait their turn before they are sent (the gateway's lanes). */
export interface RequestLanes {
  run<T>(organizationId: string, send: () => Promise<T>): Promise<T>;
}

/**
 * Request/reply over core NATS with our `RpcServer`: the request is `{principal, data}`, the reply the
 * envelope itself, received on the connection's `ReplyInbox`.
 */
export class RpcClient {
  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
    /** The service sending, named on its spans (several share the all-in-one process). */
    private readonly service?: string,
    /** Bounds each organization's requests in flight (the gateway's: docs/flow-control.md). */
    private readonly lanes?: RequestLanes,
  ) {}

  /**
   * Sends `data` to a catalog subject on behalf of `caller` (a principal, or null for system subjects)
   * and answers the subject's reply, or throws the DomainException the service answered.
   */
  async request<TRequest extends object, TReply, TCaller extends Principal | null>(
    entry: RpcSubject<TRequest, TReply, TCaller>,
    caller: NoInfer<TCaller>,
    data: NoInfer<TRequest>,
    timeoutMs?: number,
  ): Promise<TReply> {
    const envelope = await observeRequest(entry.bare, this.requestEnvelope(entry, caller, data, timeoutMs));
    if (envelope.ok) return envelope.data;
    const { code, message, details } = envelope.error;
    throw new DomainException(isErrorCode(code) ? code : 'internal', message, details);
  }

  /**
   * `request`, sent again while nobody serves the subject (its service restarting, or all its
   * replicas being replaced) for up to `patienceMs`, backing off to 2 s between tries. Such a request
   * was carried out by no one (`isUnserved`), so sending it again cannot apply it twice; every other
   * failure, a timeout included, is thrown at once, unless the request is `idempotent` (a read):
   * then any `service_unavailable`, a timeout included, is asked again. `signal` ends the wait early,
   * with the last failure.
   */
  async requestWhenServed<TRequest extends object, TReply, TCaller extends Principal | null>(
    entry: RpcSubject<TRequest, TReply, TCaller>,
    caller: NoInfer<TCaller>,
    data: NoInfer<TRequest>,
    {
      timeoutMs,
      patienceMs,
      signal,
      idempotent = false,
    }: { timeoutMs?: number; patienceMs: number; signal?: AbortSignal; idempotent?: boolean },
  ): Promise<TReply> {
    const deadline = Date.now() + patienceMs;
    for (let pauseMs = 100; ; pauseMs = Math.min(pauseMs * 2, 2_000)) {
      try {
        return await this.request(entry, caller, data, timeoutMs);
      } catch (error) {
        const again = idempotent
          ? error instanceof DomainException && error.code === 'service_unavailable'
          : isUnserved(error);
        if (!again || signal?.aborted || Date.now() + pauseMs > deadline) throw error;
        await sleep(pauseMs, undefined, { signal }).catch(() => {
          throw error;
        });
      }
    }
  }

  /** The reply envelope as the service sent it: for the admin CLI, which prints errors as they came. */
  async requestEnvelope<TRequest extends object, TReply, TCaller extends Principal | null>(
    entry: RpcSubject<TRequest, TReply, TCaller>,
    caller: NoInfer<TCaller>,
    data: NoInfer<TRequest>,
    timeoutMs = this.timeoutMs,
  ): Promise<RpcEnvelope<TReply>> {
    const send = () =>
      natsClientSpan(entry.bare, this.service, () => this.send(entry, caller, data, timeoutMs));
    return this.lanes && caller ? this.lanes.run(caller.organizationId, send) : send();
  }

  private async send<TRequest extends object, TReply, TCaller extends Principal | null>(
    entry: RpcSubject<TRequest, TReply, TCaller>,
    caller: TCaller,
    data: TRequest,
    timeoutMs: number,
  ): Promise<RpcEnvelope<TReply>> {
    const subject = entry.name;
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, currentRequestId() ?? randomUUID());
    setClientHeaders(headers);
    injectTraceHeaders(headers);
    const body = JSON.stringify({ principal: caller, data });
    const inbox = ReplyInbox.of(this.connection);
    let message: Msg;
    try {
      message = await new Promise<Msg>((resolve, reject) => {
        sendBatched(this.connection, () => {
          inbox
            .request(subject, body, headers, timeoutMs, entry.working ? WORKING_SILENCE_MS : undefined)
            .then(resolve, reject);
        });
      });
    } catch (error) {
      throw toUnavailable(subject, error);
    }
    try {
      return message.json<RpcEnvelope<TReply>>();
    } catch {
      throw new DomainException('internal', `The service behind ${subject} answered something unreadable.`);
    }
  }
}

/**
 * Where the request came from (the gateway's client address and User-Agent), for the audit log of the
 * service that makes a change: carried beside the request id, never in the body.
 */
function setClientHeaders(headers: ReturnType<typeof natsHeaders>): void {
  const context = currentRequestContext();
  if (context?.clientAddress) headers.set(CLIENT_ADDRESS_HEADER, headerText(context.clientAddress, 100));
  if (context?.userAgent) headers.set(USER_AGENT_HEADER, headerText(context.userAgent, 500));
}

/** Printable ASCII only (a NATS header value is one line), cut to `max` characters. */
function headerText(value: string, max: number): string {
  return value.replace(/[^\x20-\x7e]/g, '?').slice(0, max);
}

/**
 * The server that took the request stopped saying it was working on it (a `working` subject): it
 * died or lost NATS. Unlike NoResponders, the request may have been partly carried out.
 */
export class ResponderLost extends DomainException {
  constructor(subject: string) {
    super('service_unavailable', `The service working on ${subject} stopped answering. Try again shortly.`);
  }
}

/**
 * Nobody carried the request out, so sending it again is safe: it reached no server (NoResponders),
 * or the server that took it could not pass it on and says so with `details.unserved` (a database
 * replica whose database's own replica is down).
 */
export function isUnserved(error: unknown): boolean {
  return (
    error instanceof NoResponders ||
    (error instanceof DomainException &&
      error.code === 'service_unavailable' &&
      error.details?.unserved === true)
  );
}

/** Nobody serves the subject right now: the request reached no one, so sending it again is safe. */
export class NoResponders extends DomainException {
  constructor(subject: string) {
    super('service_unavailable', `No service is answering ${subject} right now. Try again shortly.`);
  }
}

function toUnavailable(subject: string, error: unknown): DomainException {
  if (error instanceof ResponderLostError) return new ResponderLost(subject);
  if (
    error instanceof errors.NoRespondersError ||
    (error instanceof Error && /no responders/i.test(error.message))
  ) {
    return new NoResponders(subject);
  }
  if (error instanceof errors.TimeoutError || (error instanceof Error && /timeout/i.test(error.message))) {
    return new DomainException(
      'service_unavailable',
      `The service behind ${subject} did not answer in time.`,
    );
  }
  if (error instanceof Error && /Permissions Violation/i.test(error.message)) {
    // A subject missing from this identity's permissions: the catalog and the server's rendered
    // configuration disagree (docs/architecture.md, "Adding a subject").
    return new DomainException(
      'internal',
      `The message bus refused ${subject}: this service's NATS permissions do not allow it.`,
    );
  }
  return new DomainException('internal', 'The message bus failed to carry the request.');
}
