import { DomainException } from '#common';
import {
  ACTION_ANSWER_MARGIN_MS,
  actionTimeoutMs,
  type ConnectionSummary,
  EventsSubjects,
  hasAction,
  parseActionRef,
  resolveActionConnection,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { RunnerConfig } from '../runner.config.js';
import { type NodeExecutor, type PreparedStep, type StepContext, StepFailure } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';
import { stepRequest } from './step-request.js';

/**
 * Runs one app action (`<provider>__<action>`) through the events service, which holds the
 * connections and their credentials. The connection is chosen as at publish (rule 4), again at run
 * time since connections may have changed since. Every attempt carries its idempotency key, so an
 * action re-run after a crash (at least once) can be recognised by the app.
 */
@Injectable()
@NodeExecutorProvider()
export class ActionExecutor implements NodeExecutor {
  readonly type = 'action';
  readonly pure = false;
  readonly textField = 'result';

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: RunnerConfig,
  ) {}

  prepare(context: StepContext): PreparedStep {
    const { action, connectionId, input } = context.properties as {
      action?: unknown;
      connectionId?: unknown;
      input?: unknown;
    };
    const ref = typeof action === 'string' ? parseActionRef(action) : null;
    if (!ref || typeof action !== 'string') throw new StepFailure('action must be <provider>__<action>.');
    if (!hasAction(ref.provider, ref.action)) throw new StepFailure(`No app has the action ${action}.`);
    if (connectionId !== undefined && typeof connectionId !== 'string') {
      throw new StepFailure('connectionId must be text.');
    }
    if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
      throw new StepFailure('input must be an object.');
    }
    const rendered = (context.renderDeep(input ?? {}, 'input') ?? {}) as Record<string, unknown>;
    const named = connectionId === undefined ? undefined : context.render(connectionId, 'connectionId');
    const timeoutMs = actionTimeoutMs(rendered);
    return {
      input: JSON.stringify({ action, ...(named ? { connectionId: named } : {}), input: rendered }),
      run: async () => {
        try {
          const connection = await this.connectionFor(context, ref.provider, named);
          const { status, result } = await stepRequest(
            this.rpc,
            EventsSubjects.actionsExecute,
            context,
            () => ({
              connectionId: connection.id,
              action,
              input: rendered,
              idempotencyKey: context.idempotencyKey,
              timeoutMs,
              ...(context.stoppedByCancelOf === null ? {} : { runId: context.stoppedByCancelOf }),
            }),
            {
              timeoutMs: timeoutMs + ACTION_ANSWER_MARGIN_MS,
              patienceMs: this.config.STEP_UNAVAILABLE_WAIT_MS,
            },
          );
          return { status: 'done', output: { result: JSON.stringify(result ?? null), status } };
        } catch (error) {
          if (error instanceof DomainException) throw new StepFailure(error.message);
          throw error;
        }
      },
    };
  }

  private async connectionFor(
    context: StepContext,
    provider: string,
    named: string | undefined,
  ): Promise<ConnectionSummary> {
    const { connections } = await this.rpc.requestWhenServed(
      EventsSubjects.connectionsSummary,
      context.run.principal,
      {},
      // A read: asked again even when the events service that took it died before answering.
      { patienceMs: this.config.STEP_UNAVAILABLE_WAIT_MS, signal: context.signal, idempotent: true },
    );
    const trigger = context.run.triggerNode?.data.properties;
    const triggerConnectionId =
      trigger?.kind === 'event' && typeof trigger.connectionId === 'string'
        ? trigger.connectionId
        : undefined;
    const triggerConnection = connections.find((connection) => connection.id === triggerConnectionId);
    const chosen = resolveActionConnection(provider, named, triggerConnection, connections);
    if (chosen) return chosen;
    throw new StepFailure(
      named
        ? `The connection ${named} is not a ${provider} connection of this organization.`
        : `No ${provider} connection to use: connect one, or name the connection on the node.`,
    );
  }
}
