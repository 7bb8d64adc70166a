import { randomUUID } from 'node:crypto';

import {
  type Principal,
  type RpcEnvelope,
  type RunCancelledEvent,
  RunnerSubjects,
  type RpcSubject,
  WORKING_HEADER,
} from '#contracts';
import { inboxPrefixOf } from '#nats';
import type { NatsConnection } from '@nats-io/transport-node';

import { connectAs, type StackDescription } from './test-stack.js';

/**
 * Talks to the step services (events, agent, database) as the runner does, for tests of what they do
 * on their own: a step's request, and a run's cancel notice (`RunnerSubjects.runCancelled`), which
 * only the runner may send. Subjects are named with the stack's prefix, which the test process runs
 * without.
 */
export class ActingRunner {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly prefix: string,
  ) {}

  static async connect(stack: StackDescription): Promise<ActingRunner> {
    return new ActingRunner(await connectAs(stack, 'runner'), stack.env.NATS_SUBJECT_PREFIX ?? '');
  }

  /**
   * Sends a step's request and answers its reply envelope; the "still working" notices of a long
   * request are skipped. Resolves once the request is on the server (`sent`), so a test can act on
   * the work it started.
   */
  async request<TRequest extends object, TReply>(
    entry: RpcSubject<TRequest, TReply, Principal>,
    principal: Principal,
    data: TRequest,
    timeoutMs = 60_000,
  ): Promise<{ reply: Promise<RpcEnvelope<TReply>> }> {
    const inbox = `${inboxPrefixOf('runner')}.${randomUUID().replaceAll('-', '')}`;
    const subscription = this.connection.subscribe(inbox, { timeout: timeoutMs });
    const reply = (async () => {
      try {
        for await (const message of subscription) {
          if (message.headers?.get(WORKING_HEADER)) continue;
          return message.json<RpcEnvelope<TReply>>();
        }
      } finally {
        subscription.unsubscribe();
      }
      throw new Error(`no reply on ${entry.bare}`);
    })();
    this.connection.publish(`${this.prefix}${entry.bare}`, JSON.stringify({ principal, data }), {
      reply: inbox,
    });
    await this.connection.flush();
    return { reply };
  }

  /** Sends a run's cancel notice; answers once the NATS server has it, with when it was sent. */
  cancel(event: RunCancelledEvent): Promise<number> {
    return this.sendRaw(event.runId, JSON.stringify(event));
  }

  /** Sends anything on a run's cancel subject, a notice that is not valid included. */
  async sendRaw(runId: string, data: string): Promise<number> {
    const sentAt = performance.now();
    this.connection.publish(`${this.prefix}${RunnerSubjects.runCancelled.bare}.${runId}`, data);
    await this.connection.flush();
    return sentAt;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
