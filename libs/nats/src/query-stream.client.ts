import { randomUUID } from 'node:crypto';

import { currentRequestId, DomainException, isErrorCode } from '#common';
import {
  type NatsIdentity,
  QUERY_REPLY_TIMEOUT_MS,
  QUERY_STREAM_SILENCE_MS,
  QueryStreamHeaders,
  queryStreamPartBytes,
  REQUEST_ID_HEADER,
  type RpcErrorBody,
} from '#contracts';
import {
  createInbox,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
} from '@nats-io/transport-node';

import { inboxPrefixOf } from './permissions/nats-permissions.js';
import { injectTraceHeaders, natsClientSpan } from './trace-context.js';

/** How long the database service may take to take each part of a large request. */
const PART_TIMEOUT_MS = 10_000;

function unavailable(message: string): DomainException {
  return new DomainException('service_unavailable', message);
}

/** A subject without the deployment's prefix, for span names. */
function subjectName(subject: string): string {
  const prefix = process.env.NATS_SUBJECT_PREFIX ?? '';
  return prefix && subject.startsWith(prefix) ? subject.slice(prefix.length) : subject;
}

/**
 * The caller's side of the query-stream protocol (`query-stream.protocol.ts`): sends a request of
 * any size to `subject` and answers the JSON of the reply as bytes, or throws a DomainException with
 * the service's code. Used by the gateway for its query route and by a database replica relaying a
 * batch to the replica that holds the database.
 */

export class QueryStreamClient {
  constructor(
    readonly nats: NatsConnection,
    private readonly identity: NatsIdentity,
    private readonly timeoutMs = QUERY_REPLY_TIMEOUT_MS,
  ) {}

  /** `payload` is the UTF-8 JSON of `{principal, data}`. */
  send(subject: string, payload: Buffer, extraHeaders: Record<string, string> = {}): Promise<Buffer> {
    return natsClientSpan(subjectName(subject), undefined, () =>
      this.sendTraced(subject, payload, extraHeaders),
    );
  }

  private async sendTraced(
    subject: string,
    payload: Buffer,
    extraHeaders: Record<string, string>,
  ): Promise<Buffer> {
    const partBytes = queryStreamPartBytes(this.nats.info?.max_payload ?? 1024 * 1024);
    const requestId = currentRequestId() ?? randomUUID();
    const inbox = createInbox(inboxPrefixOf(this.identity));
    const answer = this.collect(inbox);
    // Settled with the request below if sending fails, so the collector never rejects unobserved.
    answer.catch(() => undefined);
    try {
      const first = payload.subarray(0, partBytes);
      const headers = this.headers(requestId, {
        ...extraHeaders,
        [QueryStreamHeaders.total]: String(payload.length),
      });
      if (first.length === payload.length) {
        this.nats.publish(subject, first, { reply: inbox, headers });
      } else {
        await this.upload(subject, payload, partBytes, headers, inbox, requestId);
      }
    } catch (error) {
      answer.cancel();
      throw error;
    }
    return answer;
  }

  private async upload(
    subject: string,
    payload: Buffer,
    partBytes: number,
    headers: MsgHdrs,
    inbox: string,
    requestId: string,
  ): Promise<void> {
    const opened = await this.request(subject, payload.subarray(0, partBytes), headers);
    const continueTo = opened.headers?.get(QueryStreamHeaders.continueTo);
    if (!continueTo)
      throw this.errorOf(opened.data) ?? unavailable('The database service refused the batch.');
    for (let offset = partBytes; offset < payload.length; offset += partBytes) {
      const part = payload.subarray(offset, offset + partBytes);
      const partHeaders = this.headers(requestId, { [QueryStreamHeaders.offset]: String(offset) });
      if (offset + part.length >= payload.length) {
        this.nats.publish(continueTo, part, { reply: inbox, headers: partHeaders });
      } else {
        const ack = await this.request(continueTo, part, partHeaders);
        if (!ack.headers?.has(QueryStreamHeaders.ack)) {
          throw this.errorOf(ack.data) ?? unavailable('The database service dropped the batch.');
        }
      }
    }
  }

  private async request(subject: string, data: Uint8Array, headers: MsgHdrs): Promise<Msg> {
    try {
      return await this.nats.request(subject, data, { timeout: PART_TIMEOUT_MS, headers });
    } catch (error) {
      throw error instanceof Error && /no responders/i.test(error.message)
        ? unavailable('No database service is answering right now. Try again shortly.')
        : unavailable('The database service did not take the batch in time.');
    }
  }

  /**
   * Gathers the parts of the answer sent to `inbox`. Subscribed before the request goes out, so no
   * part can arrive before anyone listens.
   */
  private collect(inbox: string): Promise<Buffer> & { cancel(): void } {
    let cancel = () => undefined as void;
    const promise = new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      let received = 0;
      let total = -1;
      let ok = false;
      let done = false;
      const finish = (error: DomainException | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearTimeout(silence);
        subscription.unsubscribe();
        if (error) reject(error);
        else if (ok) resolve(Buffer.concat(parts, received));
        else
          reject(this.errorOf(Buffer.concat(parts, received)) ?? unavailable('The database service failed.'));
      };
      const subscription = this.nats.subscribe(inbox, {
        callback: (error, message) => {
          if (error) return finish(unavailable('The answer of the database service was lost.'));
          if (message.headers?.code === 503) {
            return finish(unavailable('No database service is answering right now. Try again shortly.'));
          }
          heard();
          if (message.headers?.has(QueryStreamHeaders.working)) return;
          const part = Number(message.headers?.get(QueryStreamHeaders.part));
          if (part !== parts.length)
            return finish(unavailable('Part of the database answer was lost. Try again.'));
          if (part === 0) {
            ok = message.headers?.get(QueryStreamHeaders.status) === 'ok';
            total = Number(message.headers?.get(QueryStreamHeaders.total));
          }
          parts.push(Buffer.from(message.data));
          received += message.data.length;
          if (received >= total) finish(null);
        },
      });
      const timer = setTimeout(
        () => finish(unavailable('The database service did not answer in time.')),
        this.timeoutMs,
      );
      // A replica that stops sending its heartbeat died with the batch, which rolled back.
      let silence: NodeJS.Timeout | undefined;
      const heard = () => {
        clearTimeout(silence);
        silence = setTimeout(
          () =>
            finish(
              unavailable(
                'The database service stopped answering while the batch ran. A batch is applied completely or not at all: check which before you retry.',
              ),
            ),
          QUERY_STREAM_SILENCE_MS,
        );
      };
      heard();
      cancel = () => finish(unavailable('The batch was not sent.'));
    });
    return Object.assign(promise, { cancel: () => cancel() });
  }

  private headers(requestId: string, values: Record<string, string>): MsgHdrs {
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, requestId);
    for (const [key, value] of Object.entries(values)) headers.set(key, value);
    // On every part: the server reads the context off the part that completes the request.
    injectTraceHeaders(headers);
    return headers;
  }

  private errorOf(data: Uint8Array): DomainException | null {
    try {
      const body = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<RpcErrorBody>;
      if (typeof body.code !== 'string' || typeof body.message !== 'string') return null;
      return new DomainException(isErrorCode(body.code) ? body.code : 'internal', body.message, body.details);
    } catch {
      return null;
    }
  }
}
