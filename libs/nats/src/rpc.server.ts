import { createLogger, DomainException, requestContext } from '#common';
import {
  CLIENT_ADDRESS_HEADER,
  type Principal,
  REQUEST_ID_HEADER,
  type RpcEnvelope,
  type RpcSubject,
  USER_AGENT_HEADER,
  WORKING_HEADER,
  WORKING_INTERVAL_MS,
} from '#contracts';
import type { INestApplicationContext } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import {
  Empty,
  type Msg,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

import { connectNats, type NatsEndpoint } from './connection.js';
import { HANDLES_METADATA } from './handles.decorator.js';
import { MalformedMessageException, readMessage } from './message-validation.js';
import { observeHandled } from './metrics/nats.metrics.js';
import { sendBatched } from './send-batch.js';
import { natsServerSpan } from './trace-context.js';

export interface RpcServerOptions {
  /** Names the connection and the log lines. */
  name: string;
  /** The service's queue group: replicas share each subject's requests. */
  queue: string;
  nats: NatsEndpoint;
}

type AnySubject = RpcSubject<object, unknown, Principal | null>;

interface Route {
  entry: AnySubject;
  instance: object;
  method: (request: object, caller: Principal | null) => unknown;
}

/**
 * Serves every `@Handles` method of an app over core NATS request/reply. A request is the JSON
 * `{principal, data}` and its reply the envelope `{ok: true, data}` or `{ok: false, error}`, nothing
 * around them. It replaces Nest's NATS microservice, whose packet wrapping, RxJS pipeline and
 * per-request execution context cost as much CPU as the handler and its Postgres read together
 * (docs/benchmarks.md, "Gateway").
 */
export class RpcServer {
  private readonly subscriptions: Subscription[] = [];
  private inFlight = 0;
  private idle?: () => void;
  private drained?: Promise<void>;

  private constructor(
    /** The connection the handlers are served on, which the readiness probe pings. */
    readonly connection: NatsConnection,
    private readonly logger: Logger,
    private readonly service: string,
  ) {}

  /** Connects as the service's identity and subscribes to every subject the app's handlers serve. */
  static async start(app: INestApplicationContext, options: RpcServerOptions): Promise<RpcServer> {
    const routes = findRoutes(app.get(ModulesContainer));
    const server = new RpcServer(
      await connectNats(options.nats, options.name),
      createLogger(options.name),
      options.name,
    );
    for (const route of routes) server.serve(route, options.queue);
    // The subscriptions have reached the NATS server once it answers a ping after them: the service
    // only reports ready when it can be reached.
    await server.connection.flush();
    return server;
  }

  /** The subjects served, for tests and the start-up log. */
  get subjects(): string[] {
    return this.subscriptions.map((subscription) => subscription.getSubject());
  }

  /**
   * Stops taking requests, answers those already received, then closes the connection once the last
   * reply is on its way. Safe to call more than once.
   */
  drain(): Promise<void> {
    this.drained ??= this.stop();
    return this.drained;
  }

  private async stop(): Promise<void> {
    if (this.connection.isClosed()) return;
    await Promise.all(this.subscriptions.map((subscription) => subscription.drain()));
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    await this.connection.drain();
  }

  private serve(route: Route, queue: string): void {
    const subscription = this.connection.subscribe(route.entry.name, {
      queue,
      callback: (error, message) => {
        if (error) return;
        this.inFlight += 1;
        const requestId = message.headers?.get(REQUEST_ID_HEADER) || randomUUID();
        const working = route.entry.working ? this.sayWorking(message) : undefined;
        // Where the request came from, for the audit log (docs/audit.md).
        const clientAddress = message.headers?.get(CLIENT_ADDRESS_HEADER) || undefined;
        const userAgent = message.headers?.get(USER_AGENT_HEADER) || undefined;
        void requestContext
          .run({ requestId, clientAddress, userAgent }, () =>
            natsServerSpan(route.entry.bare, this.service, message.headers, (span) =>
              this.answer(route, message).then((reply) => {
                if (span && !reply.startsWith('{"ok":true')) span.setAttribute('flowmesh.rpc.ok', false);
                return reply;
              }),
            ),
          )
          .then((reply) => {
            clearInterval(working);
            sendBatched(this.connection, () => this.respond(route, message, reply));
          });
      },
    });
    void subscription.closed.then((error) => {
      if (error) this.logger.error({ err: error, subject: route.entry.name }, 'stopped serving a subject');
    });
    this.subscriptions.push(subscription);
  }

  /** Tells the caller of a long request, until it is answered, that this server is still at it. */
  private sayWorking(message: Msg): NodeJS.Timeout | undefined {
    const inbox = message.reply;
    if (!inbox) return undefined;
    const headers = natsHeaders();
    headers.set(WORKING_HEADER, '1');
    return setInterval(() => {
      try {
        this.connection.publish(inbox, Empty, { headers });
      } catch {
        // A closed connection: the caller will hear nothing more and give up, as it should.
      }
    }, WORKING_INTERVAL_MS);
  }

  /** Never rejects: whatever happens, the caller gets an envelope (or, at worst, its timeout). */
  private async answer(route: Route, message: Msg): Promise<string> {
    const began = performance.now();
    try {
      const { request, caller } = readMessage(route.entry, parse(route.entry, message));
      const data: unknown = await route.method.call(route.instance, request, caller);
      observeHandled(route.entry.bare, began);
      return JSON.stringify({ ok: true, data: data ?? null });
    } catch (error) {
      const envelope = failureEnvelope(error, this.logger);
      observeHandled(route.entry.bare, began, envelope.ok ? undefined : envelope.error.code);
      return JSON.stringify(envelope);
    }
  }

  /** A request counts as in flight until its reply is handed to the connection, which drain flushes. */
  private respond(route: Route, message: Msg, reply: string): void {
    try {
      message.respond(reply);
    } catch (error) {
      this.logger.warn({ err: error, subject: route.entry.name }, 'could not send a reply');
    }
    this.inFlight -= 1;
    if (this.inFlight === 0) this.idle?.();
  }
}

/**
 * Every failure becomes an `{ok: false}` envelope, so the caller always learns the contract's code;
 * an unexpected error is logged with an id and answered opaquely. Shared with subjects a service
 * serves by hand.
 */
export function failureEnvelope(exception: unknown, logger: Logger): RpcEnvelope<never> {
  if (exception instanceof DomainException) {
    // A peer sent what its subject does not allow: a bug or a forged message, worth a log line.
    if (exception instanceof MalformedMessageException) {
      logger.warn({ issues: exception.details?.issues }, exception.message);
    }
    return {
      ok: false,
      error: {
        status: exception.status,
        code: exception.code,
        message: exception.message,
        ...(exception.details === undefined ? {} : { details: exception.details }),
      },
    };
  }
  const errorId = randomUUID();
  logger.error({ err: exception, errorId }, 'unexpected error in handler');
  return {
    ok: false,
    error: {
      status: 500,
      code: 'internal',
      message: `Something went wrong on our side (error id ${errorId}).`,
    },
  };
}

function parse(entry: AnySubject, message: Msg): unknown {
  try {
    return message.json();
  } catch {
    throw new MalformedMessageException(entry.bare, [{ path: '', message: 'the message must be JSON' }]);
  }
}

/**
 * The `@Handles` methods of every controller and provider the app built. A subject served twice, or
 * by an instance Nest builds per request, is a mistake the service should not start with.
 */
function findRoutes(modules: ModulesContainer): Route[] {
  const scanner = new MetadataScanner();
  const seen = new Set<object>();
  const routes = new Map<string, Route & { owner: string }>();
  for (const moduleRef of modules.values()) {
    for (const wrapper of [...moduleRef.controllers.values(), ...moduleRef.providers.values()]) {
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      for (const key of scanner.getAllMethodNames(Object.getPrototypeOf(instance) as object)) {
        const method = (instance as Record<string, Route['method']>)[key];
        const entry = Reflect.getMetadata(HANDLES_METADATA, method) as AnySubject | undefined;
        if (!entry) continue;
        const owner = `${String(wrapper.name)}.${key}`;
        if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
          throw new Error(`${owner} serves ${entry.bare}, so it must be a singleton`);
        }
        const other = routes.get(entry.name);
        if (other) throw new Error(`${entry.bare} is served twice: by ${other.owner} and ${owner}`);
        routes.set(entry.name, { entry, instance, method, owner });
      }
    }
  }
  return [...routes.values()];
}
