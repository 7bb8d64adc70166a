export interface RawResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * HTTP as it is, for what the OpenAPI document does not describe: the browser routes (`/app/*`,
 * `/api/auth/*`), and requests made wrong on purpose (a bad body, a wrong method, a form post). The
 * caller names the type of the body it expects; without one the body is `unknown`. `/api/v1` calls a
 * client would make go through `ApiClient`, typed by the document.
 */
export class RawClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  /** `body` goes as JSON unless it is a string, which goes as it is. */
  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawResponse<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = unknown>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  patch<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = unknown>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  /** Follows `nextCursor` to the end and answers every item in order. */
  async listAll<T>(path: string, limit = 100): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const query = `${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: RawResponse<{ data: T[]; nextCursor: string | null }> = await this.get(`${path}${query}`);
      if (page.status !== 200)
        throw new Error(`GET ${path} answered ${page.status}: ${JSON.stringify(page.body)}`);
      items.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    return items;
  }
}
