import { DomainException } from '#common';

/** Action inputs come from diagrams and templates: read them field by field with a clear refusal. */
export function textInput(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') {
    throw DomainException.invalidRequest([{ path: `input.${name}`, message: `${name} must be text` }]);
  }
  return value;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/;
const HEADERS_MAX = 50;

/** A `{name: value}` record of HTTP headers, or nothing. */
export function headersInput(value: unknown, path: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  const refuse = (message: string) => DomainException.invalidRequest([{ path, message }]);
  if (typeof value !== 'object' || Array.isArray(value)) throw refuse('headers must be an object');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > HEADERS_MAX) throw refuse(`at most ${HEADERS_MAX} headers`);
  const headers: Record<string, string> = {};
  for (const [name, header] of entries) {
    if (!HEADER_NAME.test(name)) throw refuse(`${name} is not a header name`);
    if (typeof header !== 'string' || /[\r\n]/.test(header) || header.length > 8_192) {
      throw refuse(`header ${name} must be text on one line`);
    }
    headers[name.toLowerCase()] = header;
  }
  return headers;
}

/** An HTTP body: text as it is, anything else as JSON. */
export function bodyInput(value: unknown): { body: string | undefined; json: boolean } {
  if (value === undefined || value === null) return { body: undefined, json: false };
  if (typeof value === 'string') return { body: value, json: false };
  return { body: JSON.stringify(value), json: true };
}

/** An answer's body as JSON when it says it is JSON and is, else as text. */
export function readAnswer(contentType: string | undefined, body: string): unknown {
  if (contentType && /\bjson\b/i.test(contentType)) {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }
  return body;
}

/** The start of an answer, for an error message. */
export function excerpt(body: string, length = 200): string {
  return body.length > length ? `${body.slice(0, length)}…` : body;
}
