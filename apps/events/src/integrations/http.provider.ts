import { DomainException } from '#common';
import type { ConnectionSettings } from '#contracts';

import { appFailure, type OutboundHttp } from '../outbound/outbound-http.js';
import type { ActionCall, ActionDone, AppProvider, Connected } from './app-provider.js';
import { bodyInput, excerpt, headersInput, readAnswer, textInput } from './input.util.js';
import { originsInput } from './origins.util.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * The connection's credential headers and the origins they may go to. A connection made before
 * connections named their origins has none: its headers go nowhere (null) rather than to an origin
 * guessed for it.
 */
export function httpCredentialsOf(credentials: Record<string, unknown>) {
  const headers = headersInput(credentials.headers, 'config.headers');
  const origins = Array.isArray(credentials.allowedOrigins) ? (credentials.allowedOrigins as string[]) : null;
  return { headers, origins, held: Object.keys(headers).length > 0 };
}

export const noOriginsYet = () =>
  new DomainException(
    'invalid_request',
    'The connection holds headers but names no origins they may be sent to (it was made before ' +
      'connections did), so nothing was sent. An owner or admin sets its allowed origins on the ' +
      'Connections page (PATCH /app/connections/{id}).',
    { issues: [{ path: 'connection.allowedOrigins', message: 'the connection names no allowed origins' }] },
  );

/**
 * `http`: any HTTP API, with headers (an API token) kept in the connection. The headers go only to
 * the connection's allowed origins, on the first request and on each redirect hop: a node, or an
 * agent's model, may name any URL, and must not be able to hand an admin's token to it.
 */
export class HttpProvider implements AppProvider {
  readonly id = 'http' as const;

  constructor(private readonly http: OutboundHttp) {}

  connect(config: Record<string, unknown>): Connected {
    const headers = headersInput(config.headers, 'config.headers');
    if (Object.keys(headers).length === 0) {
      if (config.allowedOrigins !== undefined) throw withoutHeaders('config.allowedOrigins');
      return { credentials: { headers } };
    }
    return {
      credentials: { headers, allowedOrigins: originsInput(config.allowedOrigins, 'config.allowedOrigins') },
    };
  }

  settings(credentials: Record<string, unknown>): ConnectionSettings {
    const { held, origins } = httpCredentialsOf(credentials);
    return held ? { allowedOrigins: origins ?? [] } : {};
  }

  configure(credentials: Record<string, unknown>, settings: ConnectionSettings): Record<string, unknown> {
    if (!httpCredentialsOf(credentials).held) throw withoutHeaders('allowedOrigins');
    return { ...credentials, allowedOrigins: originsInput(settings.allowedOrigins, 'allowedOrigins') };
  }

  subscribe(): void {
    throw new DomainException('subscription_failed', 'The http app has no triggers.');
  }

  /** `http__request`: any 2xx answer is the result; any other fails the attempt. */
  async execute({ connection, input, idempotencyKey, timeoutMs, signal }: ActionCall): Promise<ActionDone> {
    const method = typeof input.method === 'string' ? input.method.toUpperCase() : 'GET';
    if (!METHODS.includes(method)) {
      throw DomainException.invalidRequest([
        { path: 'input.method', message: `method must be one of ${METHODS.join(', ')}` },
      ]);
    }
    const { headers: credentialHeaders, origins, held } = httpCredentialsOf(connection.credentials);
    if (held && origins === null) throw noOriginsYet();
    const { body, json } = bodyInput(input.body);
    const answer = await this.http.send({
      method,
      url: textInput(input, 'url'),
      headers: {
        ...(json ? { 'content-type': 'application/json' } : {}),
        ...headersInput(input.headers, 'input.headers'),
        'idempotency-key': idempotencyKey,
      },
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
      timeoutMs,
      signal,
      ...(held && origins ? { credentials: { headers: credentialHeaders, origins } } : {}),
    });
    if (answer.status < 200 || answer.status > 299) {
      const withheld =
        held && origins && !origins.includes(answer.url.origin)
          ? ` (the connection's headers were not sent to ${answer.url.origin}: it sends them only to ${origins.join(', ')})`
          : '';
      throw appFailure(`The app answered ${answer.status}: ${excerpt(answer.body)}${withheld}`);
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

const withoutHeaders = (path: string) =>
  DomainException.invalidRequest([
    {
      path,
      message: 'allowedOrigins says where the connection’s headers may go, and it has no headers',
    },
  ]);
