import { WORKING_HEADER } from '#contracts';
import {
  type ConnectionOptions,
  createInbox,
  errors,
  type MsgHdrs,
  type Msg,
  type NatsConnection,
} from '@nats-io/transport-node';

interface Waiting {
  subject: string;
  resolve: (message: Msg) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** For a `working` subject: runs out when the server has said nothing for `silenceMs`. */
  silence?: { timer: NodeJS.Timeout; ms: number };
}

/** The server that took a request stopped saying it was working on it: it died, or lost NATS. */
export class ResponderLostError extends Error {
  constructor(readonly subject: string) {
    super(`the server working on ${subject} went silent`);
    this.name = 'ResponderLostError';
  }
}

const inboxes = new WeakMap<NatsConnection, ReplyInbox>();

/**
 * The replies to one connection's requests, on one subscription (`<inbox>.*`), each found by the last
 * token of its subject. nats.js's own `request` works the same way but builds an `Error`, stack trace
 * and all, for every request it settles (its `cancel` rejects an already settled promise with a new
 * `RequestError`): 7% of the gateway's CPU on a project read (docs/benchmarks.md). What it tells
 * apart, this does too: a reply, "no responders" (the server's empty 503 answer to a request that
 * reached nobody), a timeout, a publish the connection's permissions refused, and a closed connection.
 */
export class ReplyInbox {
  private readonly waiting = new Map<string, Waiting>();
  private readonly prefix: string;
  private sequence = 0;

  private constructor(private readonly connection: NatsConnection) {
    // nats.js keeps the options a connection was made with (the identity's inbox prefix among them)
    // on the connection, though its interface does not list them.
    const { inboxPrefix } = (connection as NatsConnection & { options?: ConnectionOptions }).options ?? {};
    this.prefix = `${createInbox(inboxPrefix)}.`;
    const subscription = connection.subscribe(`${this.prefix}*`, {
      callback: (error, message) => {
        if (error) this.rejectAll(error);
        else this.settle(message);
      },
    });
    void subscription.closed.then((error) => this.rejectAll(error ?? new errors.ClosedConnectionError()));
    void this.watchRefusals();
  }

  /** The inbox of `connection`, made on first use and shared by every client of the connection. */
  static of(connection: NatsConnection): ReplyInbox {
    let inbox = inboxes.get(connection);
    if (!inbox) {
      inbox = new ReplyInbox(connection);
      inboxes.set(connection, inbox);
    }
    return inbox;
  }

  /**
   * Publishes a request and answers its reply, or rejects with nats.js's error for what happened.
   * With `silenceMs` (a `working` subject) it also rejects with ResponderLostError when neither the
   * answer nor a "still working" message came for that long.
   */
  request(
    subject: string,
    body: string,
    headers: MsgHdrs,
    timeoutMs: number,
    silenceMs?: number,
  ): Promise<Msg> {
    const token = (this.sequence++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.forget(token);
        reject(new errors.TimeoutError());
      }, timeoutMs);
      const waiting: Waiting = { subject, resolve, reject, timer };
      if (silenceMs !== undefined)
        waiting.silence = { timer: this.silenceTimer(token, silenceMs), ms: silenceMs };
      this.waiting.set(token, waiting);
      try {
        this.connection.publish(subject, body, { reply: `${this.prefix}${token}`, headers });
      } catch (error) {
        this.forget(token);
        reject(error as Error);
      }
    });
  }

  private silenceTimer(token: string, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      const waiting = this.forget(token);
      waiting?.reject(new ResponderLostError(waiting.subject));
    }, ms);
  }

  private settle(message: Msg): void {
    const token = message.subject.slice(this.prefix.length);
    if (message.headers?.get(WORKING_HEADER)) {
      const waiting = this.waiting.get(token);
      if (waiting?.silence) {
        clearTimeout(waiting.silence.timer);
        waiting.silence.timer = this.silenceTimer(token, waiting.silence.ms);
      }
      return;
    }
    const waiting = this.forget(token);
    // A reply that came after its request timed out has nobody left to hear it.
    if (!waiting) return;
    if (message.data.length === 0 && message.headers?.code === 503) {
      waiting.reject(new errors.NoRespondersError(waiting.subject));
    } else {
      waiting.resolve(message);
    }
  }

  private forget(token: string): Waiting | undefined {
    const waiting = this.waiting.get(token);
    if (!waiting) return undefined;
    this.waiting.delete(token);
    clearTimeout(waiting.timer);
    if (waiting.silence) clearTimeout(waiting.silence.timer);
    return waiting;
  }

  /** The server refuses a publish its permissions do not allow by telling the connection, not the request. */
  private async watchRefusals(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (
        status.type === 'error' &&
        status.error instanceof errors.PermissionViolationError &&
        status.error.operation === 'publish'
      ) {
        for (const [token, waiting] of this.waiting) {
          if (waiting.subject === status.error.subject) {
            this.forget(token);
            waiting.reject(status.error);
          }
        }
      }
    }
  }

  private rejectAll(error: Error): void {
    for (const token of [...this.waiting.keys()]) this.forget(token)?.reject(error);
  }
}
