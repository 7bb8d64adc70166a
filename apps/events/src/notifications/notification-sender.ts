import { DomainException } from '#common';
import { Webhook } from 'standardwebhooks';

import { excerpt } from '../integrations/input.util.js';
import type { OutboundHttp, OutboundRequest } from '../outbound/outbound-http.js';

export interface NotificationAttempt {
  /** The delivery's id: the `webhook-id` of every attempt, so a receiver can tell a repeat. */
  deliveryId: string;
  body: string;
  url: string;
  secret: string;
  /** An `http` connection's headers, and the origins they may go to. */
  credentials?: OutboundRequest['credentials'];
  signal?: AbortSignal;
}

/** What an attempt got: a 2xx answer delivers; anything else is an error to try again after. */
export interface SentAttempt {
  responseStatus: number | null;
  error: string | null;
}

/**
 * One attempt of a notification: the body POSTed to the endpoint's URL, signed the Standard Webhooks
 * way with the endpoint's secret, through the outbound guard (public addresses only, checked at every
 * hop). A redirect to another origin is not followed: the signed body goes to the endpoint's origin
 * and nowhere else.
 */
export class NotificationSender {
  constructor(
    private readonly http: OutboundHttp,
    private readonly timeoutMs: number,
  ) {}

  async send(attempt: NotificationAttempt): Promise<SentAttempt> {
    // The signature covers the timestamp header: both from one clock reading.
    const at = new Date();
    const signature = new Webhook(attempt.secret).sign(attempt.deliveryId, at, attempt.body);
    try {
      const answer = await this.http.send({
        method: 'POST',
        url: attempt.url,
        headers: {
          'content-type': 'application/json',
          'webhook-id': attempt.deliveryId,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: attempt.body,
        timeoutMs: this.timeoutMs,
        signal: attempt.signal,
        sameOriginOnly: true,
        ...(attempt.credentials ? { credentials: attempt.credentials } : {}),
      });
      if (answer.status >= 200 && answer.status <= 299) return { responseStatus: answer.status, error: null };
      return {
        responseStatus: answer.status,
        error: `The endpoint answered ${answer.status}: ${excerpt(answer.body)}`,
      };
    } catch (error) {
      if (!(error instanceof DomainException)) throw error;
      return { responseStatus: null, error: error.message };
    }
  }
}
