import { DomainException } from '#common';
import {
  type ActionResult,
  type ExecuteActionRequest,
  hasAction,
  parseActionRef,
  type Principal,
} from '#contracts';
import { RunCancellations } from '#nats';
import { Injectable } from '@nestjs/common';

import { ConnectionsService } from '../connections/connections.service.js';
import { AnsweredFailure, ConnectionRefused } from '../integrations/app-provider.js';
import { AppProviders } from '../integrations/app-providers.js';

/**
 * One attempt of an app action with the organization's connection; its credentials stay here. A
 * cancel of the action's run aborts the attempt (its request to the app is aborted), which then fails
 * with the cancel's message.
 */
@Injectable()
export class ActionsService {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly providers: AppProviders,
    private readonly cancellations: RunCancellations,
  ) {}

  execute(principal: Principal, request: ExecuteActionRequest): Promise<ActionResult> {
    return this.cancellations.during(request.runId, principal.organizationId, (signal) =>
      this.attempt(principal, request, signal),
    );
  }

  private async attempt(
    principal: Principal,
    request: ExecuteActionRequest,
    signal: AbortSignal,
  ): Promise<ActionResult> {
    const connection = await this.connections.openOwned(principal.organizationId, request.connectionId);
    const ref = parseActionRef(request.action);
    if (
      !ref ||
      ref.provider !== connection.integrationId ||
      // An MCP server's tools are its own to list: a tool it does not have, it refuses.
      (ref.provider !== 'mcp' && !hasAction(ref.provider, ref.action))
    ) {
      throw DomainException.invalidRequest([
        {
          path: 'action',
          message: `a ${connection.integrationId} connection has no action ${request.action}`,
        },
      ]);
    }
    try {
      const { status, result, health } = await this.providers.get(connection.integrationId).execute({
        connection,
        action: ref.action,
        input: request.input,
        idempotencyKey: request.idempotencyKey,
        timeoutMs: request.timeoutMs,
        signal,
      });
      if (health) await this.connections.setHealth(connection, health);
      return { status, result };
    } catch (error) {
      if (error instanceof ConnectionRefused) await this.connections.setHealth(connection, 'unhealthy');
      if (error instanceof AnsweredFailure) await this.connections.setHealth(connection, 'healthy');
      throw error;
    }
  }
}
