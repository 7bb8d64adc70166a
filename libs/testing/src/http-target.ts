import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the caller closed the connection before the answer was complete (`performance.now()`). */
  abandonedAt?: number;
}

/** A path whose calls the target holds until `release()`: the step calling it stays `running`. */
export interface HeldPath {
  path: string;
  release(): void;
}

export interface TargetResponse {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Answers only after this long: a slow app. */
  delayMs?: number;
  /** Answers only once this settles: an app that holds a call until the test lets it go. */
  until?: Promise<unknown>;
  /** Never answers: the call is held until the caller gives up. */
  hold?: true;
}

/**
 * A real local HTTP server for actions to call: it records every request, and answers each path with
 * the responses queued for it, in order (the last one repeats), or 200 `{ok: true}`.
 */
export class HttpTarget {
  readonly received: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, TargetResponse[]>();
  private readonly held = new Set<() => void>();

  private readonly server: Server;

  private constructor() {
    this.server = createServer((request, response) => {
      // A caller that goes away mid-request (a service killed by a test, a cancelled call) resets
      // its connection: `close` records that, and the reset is no failure of the test.
      request.on('error', () => undefined);
      const chunks: Buffer[] = [];
      let received: ReceivedRequest | undefined;
      response.on('close', () => {
        if (received && !response.writableFinished) received.abandonedAt = performance.now();
      });
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        received = {
          method: request.method ?? 'GET',
          path,
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.received.push(received);
        const script = this.scripts.get(path.split('?')[0] ?? path) ?? [];
        const next = script.length > 1 ? script.shift() : script[0];
        const answer = () => {
          response.writeHead(next?.status ?? 200, { 'content-type': 'application/json', ...next?.headers });
          response.end(JSON.stringify(next?.body ?? { ok: true }));
        };
        if (next?.hold) return;
        if (next?.until) void next.until.finally(answer);
        else if (next?.delayMs) setTimeout(answer, next.delayMs);
        else answer();
      });
    });
  }

  /** On `port` when given: a target that comes back where an earlier one was (an app that was down). */
  static async start(port = 0): Promise<HttpTarget> {
    const target = new HttpTarget();
    await new Promise<void>((resolve, reject) => {
      target.server.once('error', reject);
      target.server.listen(port, '127.0.0.1', resolve);
    });
    return target;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues the answers for `path`. */
  respond(path: string, ...responses: TargetResponse[]): void {
    this.scripts.set(path, responses);
  }

  /** Holds every call to `path` until `release()`; `stop()` lets go of what is still held. */
  hold(path: string): HeldPath {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.respond(path, { until: released, body: { held: path } });
    this.held.add(release);
    return { path, release };
  }

  requestsTo(path: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path.split('?')[0] === path);
  }

  async stop(): Promise<void> {
    for (const release of this.held) release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
