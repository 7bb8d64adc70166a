import createClient, { type Client } from 'openapi-fetch';

import type { ApiPaths } from './api-schema.js';
import { RawClient, type RawResponse } from './raw-client.js';

type OkJson<Operation> = Operation extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** What every call of `ApiClient` answers, as openapi-fetch gives it. */
export interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/** The status an answer came with: `expect(await statusOf(api.GET(...))).toBe(404)`. */
export async function statusOf(answer: Promise<{ response: Response }>): Promise<number> {
  return (await answer).response.status;
}

/**
 * The body of an answer a test needs to go on, once it is checked to have come with `status` (in
 * a Jest test: a failed check shows the status and the error the API gave).
 */
export function expectData<Data>(answer: Answer<Data>, status: number): Data {
  expect({ status: answer.response.status, error: answer.error }).toEqual({ status, error: undefined });
  return answer.data as Data;
}

/**
 * The body of an answer that came with `status`, or an error naming `what`, the status and the
 * error the API gave: for the workloads of the cluster proof and the chaos trials, which run outside Jest.
 */
export function requireData<Data>(answer: Answer<Data>, status: number, what: string): Data {
  if (answer.response.status !== status)
    throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data as Data;
}

/** The `GET` paths of the document that answer a page: `{data: [...], nextCursor}`. */
export type ListPath = {
  [Path in keyof ApiPaths]: OkJson<ApiPaths[Path]['get']> extends {
    data: unknown[];
    nextCursor: string | null;
  }
    ? Path
    : never;
}[keyof ApiPaths];

/** The type of one item of a list path's pages. */
export type ListItem<Path extends ListPath> =
  OkJson<ApiPaths[Path]['get']> extends { data: Array<infer Item> } ? Item : never;

type PathParams<Path extends ListPath> = ApiPaths[Path]['get'] extends {
  parameters: { path: infer Params extends Record<string, string> };
}
  ? Params
  : undefined;

/** The path parameters of a list path that has them, and the page size. */
type ListOptions<Path extends ListPath> =
  PathParams<Path> extends undefined
    ? [options?: { limit?: number }]
    : [options: { path: PathParams<Path>; limit?: number }];

/**
 * Calls the HTTP API as a client would, with an organization key or a session token, through
 * openapi-fetch and the types of the gateway's OpenAPI document: `api.GET('/api/v1/runs/{id}',
 * { params: { path: { id } } })` answers `{ data, error, response }`, the path, parameters and body
 * checked against the document when the test compiles. `raw` is for what the document leaves out.
 */
export class ApiClient {
  readonly GET: Client<ApiPaths>['GET'];
  readonly POST: Client<ApiPaths>['POST'];
  readonly PATCH: Client<ApiPaths>['PATCH'];
  readonly PUT: Client<ApiPaths>['PUT'];
  readonly DELETE: Client<ApiPaths>['DELETE'];
  /** Requests the document does not describe, or made wrong on purpose; the caller names the body's type. */
  readonly raw: RawClient;

  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {
    const client = createClient<ApiPaths>({
      baseUrl,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    this.GET = client.GET;
    this.POST = client.POST;
    this.PATCH = client.PATCH;
    this.PUT = client.PUT;
    this.DELETE = client.DELETE;
    this.raw = new RawClient(baseUrl, token);
  }

  withToken(token: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  /** Follows `nextCursor` to the end and answers every item of a list path in order. */
  listAll<Path extends ListPath>(path: Path, ...[options]: ListOptions<Path>): Promise<ListItem<Path>[]>;
  /** @deprecated A path of the document with its parameters apart, or `raw.listAll`. */
  listAll<T = any>(path: string, limit?: number): Promise<T[]>;
  listAll(path: string, options?: number | { path?: Record<string, string>; limit?: number }) {
    if (typeof options === 'number' || options === undefined) return this.raw.listAll(path, options);
    const params = options.path ?? {};
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    return this.raw.listAll(filled, options.limit);
  }

  // Untyped calls for tools/bench, which has not moved to the typed methods yet; the lint rule
  // `@typescript-eslint/no-deprecated` keeps them out of the tests. Delete them once nothing uses them.
  /** @deprecated The typed methods (`GET`, `POST`…) or `raw`. */
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    return this.raw.request<T>(method, path, body, headers);
  }
  /** @deprecated `GET` or `raw.get`. */
  get<T = any>(path: string, headers?: Record<string, string>): Promise<RawResponse<T>> {
    return this.raw.get<T>(path, headers);
  }
  /** @deprecated `POST` or `raw.post`. */
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<RawResponse<T>> {
    return this.raw.post<T>(path, body, headers);
  }
  /** @deprecated `PATCH` or `raw.patch`. */
  patch<T = any>(path: string, body?: unknown): Promise<RawResponse<T>> {
    return this.raw.patch<T>(path, body);
  }
  /** @deprecated `DELETE` or `raw.delete`. */
  delete<T = any>(path: string): Promise<RawResponse<T>> {
    return this.raw.delete<T>(path);
  }
}

/** @deprecated `RawResponse`; for the specs not moved yet. */
export type ApiResponse<T = any> = RawResponse<T>;
