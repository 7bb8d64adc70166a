import { DomainException } from '#common';

import { appFailure, type OutboundHttp } from '../outbound/outbound-http.js';
import {
  type ActionCall,
  type ActionDone,
  type AppProvider,
  type Connected,
  ConnectionRefused,
} from './app-provider.js';
import { excerpt, textInput } from './input.util.js';

/** Slack's answers for an incoming-webhook URL that was revoked or never existed. */
const GONE = new Set([403, 404, 410]);

/**
 * `slack`: posts through an incoming-webhook URL, which is the connection's only secret. It posts to
 * that URL only: a redirect to another origin is not followed.
 */
export class SlackProvider implements AppProvider {
  readonly id = 'slack' as const;

  constructor(private readonly http: OutboundHttp) {}

  connect(config: Record<string, unknown>): Connected {
    const url = config.webhookUrl;
    let parsed: URL | null = null;
    try {
      parsed = typeof url === 'string' ? new URL(url) : null;
    } catch {
      parsed = null;
    }
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
      throw DomainException.invalidRequest([
        { path: 'config.webhookUrl', message: 'webhookUrl must be the Slack incoming-webhook URL' },
      ]);
    }
    return { credentials: { webhookUrl: parsed.toString() } };
  }

  subscribe(): void {
    throw new DomainException('subscription_failed', 'The slack app has no triggers here.');
  }

  /** `slack__post_message`: `{text, blocks?}`. A revoked URL marks the connection unhealthy. */
  async execute({ connection, input, idempotencyKey, timeoutMs, signal }: ActionCall): Promise<ActionDone> {
    const message = {
      text: textInput(input, 'text'),
      ...(Array.isArray(input.blocks) ? { blocks: input.blocks } : {}),
    };
    const answer = await this.http.send({
      method: 'POST',
      url: String(connection.credentials.webhookUrl),
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(message),
      timeoutMs,
      signal,
      sameOriginOnly: true,
    });
    if (GONE.has(answer.status)) {
      throw new ConnectionRefused(`Slack refused the connection (${answer.status}): ${excerpt(answer.body)}`);
    }
    if (answer.status < 200 || answer.status > 299) {
      throw appFailure(`Slack answered ${answer.status}: ${excerpt(answer.body)}`);
    }
    return {
      status: String(answer.status),
      result: { status: answer.status, body: answer.body },
      health: 'healthy',
    };
  }
}
