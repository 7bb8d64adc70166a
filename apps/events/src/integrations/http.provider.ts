import { DomainException } from '#common';

import { appFailure, type OutboundHttp } from '../outbound/outbound-http.js';
import type { ActionCall, ActionDone, AppProvider, Connected } from './app-provider.js';
import { bodyInput, excerpt, headersInput, readAnswer, textInput } from './input.util.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** `http`: any HTTP API, with headers (an API token) kept in the connection. */
export class HttpProvider implements AppProvider {
  readonly id = 'http' as const;

  constructor(private readonly http: OutboundHttp) {}

  connect(config: Record<string, unknown>): Connected {
    return { credentials: { headers: headersInput(config.headers, 'config.headers') } };
  }

  subscribe(): void {
    throw new DomainException('subscription_failed', 'The http app has no triggers.');
  }

  /** `http__request`: any 2xx answer is the result; any other fails the attempt. */
  async execute({ connection, input, idempotencyKey, timeoutMs }: ActionCall): Promise<ActionDone> {
    const method = typeof input.method === 'string' ? input.method.toUpperCase() : 'GET';
    if (!METHODS.includes(method)) {
      throw DomainException.invalidRequest([
        { path: 'input.method', message: `method must be one of ${METHODS.join(', ')}` },
      ]);
    }
    const { body, json } = bodyInput(input.body);
    const headers = {
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...headersInput(input.headers, 'input.headers'),
      ...headersInput(connection.credentials.headers, 'config.headers'),
      'idempotency-key': idempotencyKey,
    };
    const answer = await this.http.send({
      method,
      url: textInput(input, 'url'),
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
      timeoutMs,
    });
    if (answer.status < 200 || answer.status > 299) {
      throw appFailure(`The app answered ${answer.status}: ${excerpt(answer.body)}`);
    }
    return {
      status: String(answer.status),
      result: {
        status: answer.status,
        headers: answer.headers,
        body: readAnswer(answer.headers['content-type'], answer.body),
      },
    };
  }
}
