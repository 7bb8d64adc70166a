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
  Rotated,
} from './app-provider.js';
import { excerpt, headersInput, readAnswer, textInput } from './input.util.js';
import { newWebhookSecret } from './webhook-secret.js';

function secretOf(connection: OpenConnection, name: 'secret' | 'sendingSecret'): string {
  const secret = connection.credentials[name];
  // Every webhook connection has both since the sending-secrets migration: never fall back to the
  // other one, which would let a receiver replay what it was sent into our ingress.
  if (typeof secret !== 'string') throw new Error(`webhook connection ${connection.id} has no ${name}`);
  return secret;
}

/**
 * `webhook`: events arrive signed the Standard Webhooks way with the connection's `secret`;
 * `webhook__send` signs what it sends with a second one, `sendingSecret`, so a receiver can check
 * where a delivery came from but cannot sign deliveries into `/hooks/{id}` with what it was given.
 */
export class WebhookProvider implements AppProvider {
  readonly id = 'webhook' as const;

  constructor(private readonly http: OutboundHttp) {}

  connect(): Connected {
    const secret = newWebhookSecret();
    const sendingSecret = newWebhookSecret();
    return { credentials: { secret, sendingSecret }, secret, sendingSecret };
  }

  rotateSendingSecret(credentials: Record<string, unknown>): Rotated {
    const sendingSecret = newWebhookSecret();
    return { credentials: { ...credentials, sendingSecret }, sendingSecret };
  }

  subscribe(): void {
    // Deliveries come to /hooks/{connectionId}: nothing to set up with the app.
  }

  async execute({ connection, input, idempotencyKey, timeoutMs, signal }: ActionCall): Promise<ActionDone> {
    const body = JSON.stringify(input.body ?? null);
    // The signature covers the timestamp header: both from one clock reading.
    const at = new Date();
    const signed = new Webhook(secretOf(connection, 'sendingSecret')).sign(idempotencyKey, at, body);
    const answer = await this.http.send({
      method: 'POST',
      url: textInput(input, 'url'),
      headers: {
        ...headersInput(input.headers, 'input.headers'),
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        'webhook-id': idempotencyKey,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signed,
      },
      body,
      timeoutMs,
      signal,
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
    const verifier = new Webhook(secretOf(connection, 'secret'));
    try {
      // Checks the signature over id.timestamp.body and a timestamp within five minutes.
      verifier.verify(body, headers);
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
