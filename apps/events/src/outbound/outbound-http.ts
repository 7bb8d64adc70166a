import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

import {
  DomainException,
  inSpan,
  injectTraceContext,
  SERVICE_ATTRIBUTE,
  type Span,
  SpanKind,
  SpanStatusCode,
} from '#common';
import ipaddr from 'ipaddr.js';
import {
  Agent,
  fetch as undiciFetch,
  type RequestInit as UndiciRequestInit,
  errors as undiciErrors,
  request,
} from 'undici';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /**
   * Aborts the request from outside (its run was cancelled): the connection is closed, and the
   * request fails with the signal's reason when that is a DomainException.
   */
  signal?: AbortSignal;
  /**
   * A connection's credential headers and the origins they may go to: added on the first request and
   * on every redirect hop whose origin is one of them, and to no other (an empty list: to none).
   */
  credentials?: { headers: Record<string, string>; origins: readonly string[] };
  /**
   * Fails the attempt on a redirect to another origin instead of following it: for an app whose one
   * URL is its secret (Slack's incoming webhook), which has no business anywhere else.
   */
  sameOriginOnly?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Where the answer came from, after redirects. */
  url: URL;
}

/** Where a request was refused before any byte left: an address the service may not call. */
export class ForbiddenAddress extends Error {}

/** No answer came: the name did not resolve, the connection was refused or reset (`fetch`). */
export class Unreachable extends DomainException {
  constructor(message: string) {
    super('service_unavailable', message);
  }
}

/** Statuses whose answer has no body to bound. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix: the last 32 bits are the IPv4 address a NAT64 gateway will call. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Only ordinary public addresses: no loopback, private, link-local, unique-local or reserved ones, and
 * no IPv6 form that carries an IPv4 address past the IPv4 check (IPv4-mapped `::ffff:0:0/96` is judged
 * as the IPv4 it maps; IPv4-compatible `::/96`, 6to4, Teredo and anything else outside global unicast
 * is refused). NAT64's well-known prefix is judged by the IPv4 it embeds, since DNS64 resolvers on
 * IPv6-only networks hand it out for every IPv4-only name.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.match(NAT64)) {
    return isPublicAddress(ipaddr.fromByteArray(ipv6.toByteArray().slice(12)).toString());
  }
  return ipv6.match(GLOBAL_UNICAST) && ipv6.range() === 'unicast';
}

/**
 * A DNS lookup that refuses a name when any of its addresses is not public, so the address checked
 * is the address connected to (no window for a second, different answer).
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((candidate) => !isPublicAddress(candidate.address));
    const [first] = addresses;
    if (refused || !first) {
      return callback(
        new ForbiddenAddress(`${hostname} resolves to ${refused?.address ?? 'nothing'}, a private address`),
        '',
        0,
      );
    }
    if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, first.address, first.family);
  });
};

/**
 * HTTP for app actions. Every request goes through one connection pool whose DNS lookups refuse
 * non-public addresses (unless private networks are allowed), redirects are followed here hop by
 * hop so each hop is checked the same way, and an answer is read up to a size limit within the
 * request's time limit.
 */
export class OutboundHttp {
  private readonly agent: Agent;

  constructor(
    private readonly allowPrivateNetworks: boolean,
    private readonly maxResponseBytes: number,
  ) {
    this.agent = new Agent({
      connections: 64,
      keepAliveTimeout: 10_000,
      ...(allowPrivateNetworks ? {} : { connect: { lookup: publicOnlyLookup } }),
    });
  }

  /**
   * A client span per request (docs/tracing.md), whose `traceparent` goes along so the target can
   * continue the trace. Only the method and the host are recorded: an app's URL can be its secret.
   */
  send(outbound: OutboundRequest): Promise<OutboundResponse> {
    let host = '';
    try {
      host = new URL(outbound.url).host;
    } catch {
      // Refused by `checkedUrl` below, with the reason.
    }
    return inSpan(
      outbound.method,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [SERVICE_ATTRIBUTE]: 'events',
          'http.request.method': outbound.method,
          'server.address': host,
        },
      },
      (span) => this.exchange(outbound, span),
    );
  }

  private async exchange(outbound: OutboundRequest, span: Span | undefined): Promise<OutboundResponse> {
    const timeout = AbortSignal.timeout(outbound.timeoutMs);
    const signal = outbound.signal ? AbortSignal.any([timeout, outbound.signal]) : timeout;
    let { method, body, headers } = outbound;
    let url = this.checkedUrl(outbound.url);
    const trace: Record<string, string> = {};
    injectTraceContext((key, value) => (trace[key] = value));
    try {
      for (let hop = 0; ; hop += 1) {
        const response = await request(url, {
          method: method as 'GET',
          headers: { ...headers, ...trace, ...credentialsFor(url, outbound.credentials) },
          body,
          signal,
          dispatcher: this.agent,
        });
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
          await response.body.dump();
          if (hop >= MAX_REDIRECTS) throw appFailure(`More than ${MAX_REDIRECTS} redirects.`);
          const next = this.checkedUrl(new URL(location, url).toString());
          if (next.origin !== url.origin) {
            if (outbound.sameOriginOnly) {
              throw appFailure(`The app redirected to another origin (${next.origin}); it was not followed.`);
            }
            // As the Fetch standard does on a cross-origin redirect: what the caller sent to
            // authenticate itself is not handed to another origin.
            headers = withoutAuthentication(headers);
          }
          url = next;
          if (response.statusCode === 303 || (response.statusCode <= 302 && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        span?.setAttribute('http.response.status_code', response.statusCode);
        if (response.statusCode >= 400) span?.setStatus({ code: SpanStatusCode.ERROR });
        return {
          status: response.statusCode,
          headers: flatHeaders(response.headers),
          body: await this.readBounded(response.body),
          url,
        };
      }
    } catch (error) {
      if (outbound.signal?.aborted && outbound.signal.reason instanceof DomainException) {
        throw outbound.signal.reason;
      }
      throw this.explain(error, outbound.timeoutMs);
    }
  }

  /**
   * `fetch` for a client that speaks HTTP itself (the MCP SDK's transport), over the same pool and
   * address checks as `send`. It never follows a redirect: the caller gets the 3xx and decides, and
   * its next request is checked like the first. The answer's body fails once it passes the size
   * limit. No time limit of its own: the caller's `signal` bounds it.
   */
  readonly fetch = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = this.checkedUrl(String(input));
    try {
      const answer = await undiciFetch(url, {
        ...(init as UndiciRequestInit),
        redirect: 'manual',
        dispatcher: this.agent,
      });
      return this.boundedResponse(answer as unknown as Response);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof ForbiddenAddress) throw forbidden(cause.message);
      const why =
        cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
      throw new Unreachable(`${url.origin} could not be reached: ${why}`);
    }
  };

  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * What `send` checks of a URL before anything leaves, for a URL kept to call later (a notification
   * endpoint's): absolute, http or https, no credentials, no literal private address. A name's
   * addresses are checked when it is called, each time.
   */
  check(raw: string): URL {
    return this.checkedUrl(raw);
  }

  private checkedUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw DomainException.invalidRequest([{ path: 'url', message: 'url must be an absolute URL' }]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw DomainException.invalidRequest([{ path: 'url', message: 'url must be http or https' }]);
    }
    if (url.username || url.password) {
      throw DomainException.invalidRequest([
        { path: 'url', message: 'url must not carry credentials; use headers' },
      ]);
    }
    // A literal address is never looked up, so it is checked here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivateNetworks && isIP(host) !== 0 && !isPublicAddress(host)) {
      throw forbidden(`${host} is a private address`);
    }
    return url;
  }

  private boundedResponse(answer: Response): Response {
    if (!answer.body || NULL_BODY_STATUSES.has(answer.status)) return answer;
    const reader = answer.body.getReader();
    const max = this.maxResponseBytes;
    let size = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (cancelled) return;
        if (done) return controller.close();
        size += value.byteLength;
        if (size > max) {
          await reader.cancel();
          return controller.error(appFailure(`The app answered with more than ${max} bytes.`));
        }
        controller.enqueue(value);
      },
      cancel: (reason) => {
        cancelled = true;
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  }

  private async readBounded(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > this.maxResponseBytes) {
        body.destroy();
        throw appFailure(`The app answered with more than ${this.maxResponseBytes} bytes.`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private explain(error: unknown, timeoutMs: number): DomainException {
    if (error instanceof DomainException) return error;
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof ForbiddenAddress || cause instanceof ForbiddenAddress) {
      return forbidden((cause instanceof ForbiddenAddress ? cause : (error as Error)).message);
    }
    const name = (error as { name?: string }).name;
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' ||
      error instanceof undiciErrors.RequestAbortedError
    ) {
      return appFailure(`The app did not answer within ${timeoutMs} ms (timed out).`);
    }
    const message = error instanceof Error ? error.message : String(error);
    return appFailure(`The request failed: ${message}`);
  }
}

function forbidden(reason: string): DomainException {
  return DomainException.invalidRequest(
    [{ path: 'url', message: `${reason}: requests to private networks are not allowed` }],
    `Refused: ${reason}; requests to private networks are not allowed.`,
  );
}

/** The app failed the request (an error answer, no answer in time): the step fails, and may retry. */
export function appFailure(message: string): DomainException {
  return new DomainException('service_unavailable', message);
}

/** The connection's credential headers when `url` is one of the origins they may go to, else none. */
function credentialsFor(url: URL, credentials: OutboundRequest['credentials']): Record<string, string> {
  return credentials?.origins.includes(url.origin) ? credentials.headers : {};
}

const AUTHENTICATION_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

function withoutAuthentication(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !AUTHENTICATION_HEADERS.has(name.toLowerCase())),
  );
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
