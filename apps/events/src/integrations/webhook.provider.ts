import { randomBytes } from 'node:crypto';

import { DomainException } from '#common';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

import { appFailure, type OutboundHttp } from '../outbound/outbound-http.js';
import type {
  ActionCall,
  ActionDone,
  AppProvider,
  Connected,
  InboundEvent,
  OpenConnection,
} from './app-provider.js';
import { excerpt, headersInput, readAnswer, textInput } from './input.util.js';

const secretOf = (connection: OpenConnection) => String(connection.credentials.secret);

/**
 * `webhook`: events arrive signed the Standard Webhooks way with the connection's secret, and
 * `webhook__send` signs what it sends with the same secret, so the receiver can check it.
 */
export class WebhookProvider implements AppProvider {
  readonly id = 'webhook' as const;

  constructor(private readonly http: OutboundHttp) {}

  connect(): Connected {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    return { credentials: { secret }, secret };
  }

  subscribe(): void {
    // Deliveries come to /hooks/{connectionId}: nothing to set up with the app.
  }

  async execute({ connection, input, idempotencyKey, timeoutMs }: ActionCall): Promise<ActionDone> {
    const body = JSON.stringify(input.body ?? null);
    const signed = new Webhook(secretOf(connection)).sign(idempotencyKey, new Date(), body);
    const answer = await this.http.send({
      method: 'POST',
      url: textInput(input, 'url'),
      headers: {
        ...headersInput(input.headers, 'input.headers'),
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        'webhook-id': idempotencyKey,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': signed,
      },
      body,
      timeoutMs,
    });
    if (answer.status < 200 || answer.status > 299) {
      throw appFailure(`The receiver answered ${answer.status}: ${excerpt(answer.body)}`);
    }
    return {
      status: String(answer.status),
      result: { status: answer.status, body: readAnswer(answer.headers['content-type'], answer.body) },
    };
  }

  receive(connection: OpenConnection, headers: Record<string, string>, body: string): InboundEvent {
    try {
      // Checks the signature over id.timestamp.body and a timestamp within five minutes.
      new Webhook(secretOf(connection)).verify(body, headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new DomainException(
          'unauthorized',
          'The delivery is not signed with this connection’s secret.',
        );
      }
      throw DomainException.invalidRequest([{ path: 'body', message: 'the body must be JSON' }]);
    }
    return {
      deliveryId: headers['webhook-id'] ?? '',
      trigger: 'webhook/received',
      firedAt: new Date(Number(headers['webhook-timestamp']) * 1000),
      payload: body,
    };
  }
}
