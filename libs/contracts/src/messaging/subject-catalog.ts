import type { Principal } from '../common/principal.js';
import { streamName, subject } from '../subjects.js';

/**
 * The NATS identities: one per app, plus the operator's admin CLI. Each connects as its own NATS user,
 * and the server lets it publish and subscribe only where the catalog below says it may.
 */
export const NATS_IDENTITIES = [
  'gateway',
  'catalog',
  'workflow',
  'runner',
  'database',
  'events',
  'agent',
  'admin',
] as const;
export type NatsIdentity = (typeof NATS_IDENTITIES)[number];

/** The identities that serve subjects: a subject `catalog.…` is served by `catalog`. */
export type ServiceIdentity = Exclude<NatsIdentity, 'gateway' | 'admin'>;

export type RequestClass<T extends object> = new () => T;

declare const replyType: unique symbol;

/** Carries a reply type in an entry without a value: `returns<ProjectDto>()`. */
export interface Returns<T> {
  readonly [replyType]?: T;
}

export const returns = <T>(): Returns<T> => ({});

/**
 * A request/reply subject: its name, the class its request is validated against, its reply type, and
 * the identities allowed to call it. `TCaller` is `Principal` when the message acts for an
 * organization (the gateway resolved who calls), `null` for system subjects (the caller is the
 * service or operator the NATS identity names).
 */
export interface RpcSubject<TRequest extends object, TReply, TCaller extends Principal | null> {
  readonly kind: 'rpc';
  /** The subject as this process uses it, with `NATS_SUBJECT_PREFIX`. */
  readonly name: string;
  /** The subject without any prefix: what permissions are rendered from. */
  readonly bare: string;
  readonly server: ServiceIdentity;
  readonly callers: readonly NatsIdentity[];
  readonly request: RequestClass<TRequest>;
  readonly carriesPrincipal: TCaller extends Principal ? true : false;
  readonly reply: Returns<TReply>;
  /**
   * A request that may take minutes (a workflow step's action, agent or query): while it runs, the
   * server tells the caller every `WORKING_INTERVAL_MS` that it is still at it, so a caller learns
   * within seconds, not at its timeout, that the server working on it died.
   */
  readonly working: boolean;
}

/** How often a server of a `working` subject tells its caller it is still at the request. */
export const WORKING_INTERVAL_MS = 2_000;
/** A caller of a `working` subject that hears nothing for this long takes its server for dead. */
export const WORKING_SILENCE_MS = 10_000;
/** The header that marks a message as "still working" rather than the answer. */
export const WORKING_HEADER = 'Flowmesh-Working';

export type AnyRpcSubject = RpcSubject<object, unknown, Principal | null>;

export type RequestOf<S> = S extends RpcSubject<infer TRequest, unknown, Principal | null> ? TRequest : never;
export type ReplyOf<S> = S extends RpcSubject<object, infer TReply, Principal | null> ? TReply : never;

/** A core NATS notification: one publisher, any number of listeners, nothing lost if none listens. */
export interface EventSubject<TPayload> {
  readonly kind: 'event';
  readonly name: string;
  readonly bare: string;
  readonly publisher: ServiceIdentity;
  readonly listeners: readonly NatsIdentity[];
  readonly payload: Returns<TPayload>;
  /**
   * Published on `<name>.<key>` (a run id, say) rather than on the name itself, so a listener
   * interested in one key subscribes to that key alone and the server filters the rest.
   */
  readonly keyed: boolean;
}

/**
 * A subject family served by hand rather than through Nest (the database's query stream): the server
 * subscribes to the subject and everything under it, callers publish to both.
 */
export interface StreamProtocolSubject {
  readonly kind: 'stream-protocol';
  readonly name: string;
  readonly bare: string;
  readonly server: ServiceIdentity;
  readonly callers: readonly NatsIdentity[];
}

/**
 * A request whose answer comes in many messages (the agent's chat stream): the request is a catalog
 * class with the caller's principal, as for `rpc`, but the server sends the caller's reply subject a
 * message per chunk, and the caller may write back to a subject under this one while it listens.
 * Served by hand rather than through Nest, with a protocol of the subject's own.
 */
export interface StreamedRpcSubject<TRequest extends object, TChunk> {
  readonly kind: 'streamed-rpc';
  readonly name: string;
  readonly bare: string;
  readonly server: ServiceIdentity;
  readonly callers: readonly NatsIdentity[];
  readonly request: RequestClass<TRequest>;
  readonly carriesPrincipal: true;
  readonly chunk: Returns<TChunk>;
}

export type CatalogEntry =
  AnyRpcSubject | EventSubject<unknown> | StreamProtocolSubject | StreamedRpcSubject<object, unknown>;

function serverOf(bare: string): ServiceIdentity {
  const owner = bare.split('.')[0];
  if (
    owner === 'catalog' ||
    owner === 'workflow' ||
    owner === 'runner' ||
    owner === 'database' ||
    owner === 'events' ||
    owner === 'agent'
  )
    return owner;
  throw new Error(`${bare}: a subject starts with the name of the service that serves it`);
}

interface RpcOptions<TReply> {
  callers: readonly NatsIdentity[];
  reply: Returns<TReply>;
  working?: boolean;
}

function rpcEntry<TRequest extends object, TReply, TCaller extends Principal | null>(
  bare: string,
  request: RequestClass<TRequest>,
  { callers, reply, working = false }: RpcOptions<TReply>,
  carriesPrincipal: TCaller extends Principal ? true : false,
): RpcSubject<TRequest, TReply, TCaller> {
  return {
    kind: 'rpc',
    name: subject(bare),
    bare,
    server: serverOf(bare),
    callers,
    request,
    carriesPrincipal,
    reply,
    working,
  };
}

/** A subject that acts for an organization: the message carries the caller's principal. */
export function rpc<TRequest extends object, TReply>(
  bare: string,
  request: RequestClass<TRequest>,
  options: RpcOptions<TReply>,
): RpcSubject<TRequest, TReply, Principal> {
  return rpcEntry<TRequest, TReply, Principal>(bare, request, options, true);
}

/** A subject whose caller is a service or the operator, known by its NATS identity alone. */
export function systemRpc<TRequest extends object, TReply>(
  bare: string,
  request: RequestClass<TRequest>,
  options: RpcOptions<TReply>,
): RpcSubject<TRequest, TReply, null> {
  return rpcEntry<TRequest, TReply, null>(bare, request, options, false);
}

export function event<TPayload>(
  bare: string,
  {
    listeners,
    payload,
    keyed = false,
  }: { listeners: readonly NatsIdentity[]; payload: Returns<TPayload>; keyed?: boolean },
): EventSubject<TPayload> {
  return { kind: 'event', name: subject(bare), bare, publisher: serverOf(bare), listeners, payload, keyed };
}

export function streamProtocol(
  bare: string,
  { callers }: { callers: readonly NatsIdentity[] },
): StreamProtocolSubject {
  return { kind: 'stream-protocol', name: subject(bare), bare, server: serverOf(bare), callers };
}

export function streamedRpc<TRequest extends object, TChunk>(
  bare: string,
  request: RequestClass<TRequest>,
  { callers, chunk }: { callers: readonly NatsIdentity[]; chunk: Returns<TChunk> },
): StreamedRpcSubject<TRequest, TChunk> {
  return {
    kind: 'streamed-rpc',
    name: subject(bare),
    bare,
    server: serverOf(bare),
    callers,
    request,
    carriesPrincipal: true,
    chunk,
  };
}

/**
 * A JetStream work queue: the stream, the subject its jobs are published on, and its durable
 * consumer. The owner creates the stream and consumes it; publishers may only add jobs.
 */
export interface JetStreamEntry {
  readonly kind: 'jetstream';
  /** The stream as this process names it, with the prefix folded in. */
  readonly stream: string;
  readonly bareStream: string;
  readonly subject: string;
  readonly bareSubject: string;
  readonly consumer: string;
  readonly owner: ServiceIdentity;
  readonly publishers: readonly NatsIdentity[];
}

export function jetStream(
  bareStream: string,
  options: { subject: string; consumer: string; publishers: readonly NatsIdentity[] },
): JetStreamEntry {
  return {
    kind: 'jetstream',
    stream: streamName(bareStream),
    bareStream,
    subject: subject(options.subject),
    bareSubject: options.subject,
    consumer: options.consumer,
    owner: serverOf(options.subject),
    publishers: options.publishers,
  };
}
