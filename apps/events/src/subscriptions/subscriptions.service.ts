import { DomainException } from '#common';
import {
  type ActivateTriggersRequest,
  CatalogSubjects,
  type EventTriggerBinding,
  hasTrigger,
  parseTriggerRef,
  type Principal,
  type EventsOverview,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { ConnectionRepository } from '../connections/connection.repository.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { AppProviders } from '../integrations/app-providers.js';
import { type Binding, subscriptionKey } from './binding.mapper.js';
import { BindingRepository } from './binding.repository.js';
import { filterKey, filterProblem } from './event-filter.js';

/** The dashboard lists this many unhealthy connections at most. */
const UNHEALTHY_CONNECTIONS_MAX = 100;

const refused = (trigger: EventTriggerBinding, message: string) =>
  new DomainException('subscription_failed', `Trigger ${trigger.triggerNodeId}: ${message}`, {
    triggerNodeId: trigger.triggerNodeId,
  });

/**
 * The App event triggers of live versions. Publish and resume make a workflow's triggers exactly
 * the ones sent, all or nothing: every trigger is checked with its app first, the plan limit is
 * asked of catalog, and only then, under the organization's lock, counted and saved.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly bindings: BindingRepository,
    private readonly connections: ConnectionsService,
    private readonly connectionRows: ConnectionRepository,
    private readonly providers: AppProviders,
    private readonly rpc: RpcClient,
  ) {}

  async activate(
    principal: Principal,
    { workflowId, triggers }: ActivateTriggersRequest,
  ): Promise<{ active: number }> {
    const { organizationId } = principal;
    const wanted = await Promise.all(
      triggers.map((trigger) => this.checked(organizationId, workflowId, trigger)),
    );
    // Asked before the lock: no lock waits on another service.
    const limit =
      wanted.length === 0
        ? Infinity
        : (await this.rpc.request(CatalogSubjects.planLimits, principal, {})).limits.subscriptions;
    await this.bindings.lockedFor(organizationId, async (manager) => {
      const before = await this.bindings.activeKeys(manager, organizationId);
      const after = await this.bindings.activeKeys(manager, organizationId, workflowId);
      for (const binding of wanted) after.add(subscriptionKey(binding));
      if (after.size > limit && after.size > before.size) {
        throw DomainException.planLimit('subscriptions', limit);
      }
      await this.bindings.replace(manager, organizationId, workflowId, wanted);
    });
    return { active: wanted.length };
  }

  async deactivate(principal: Principal, workflowId: string, deleted: boolean): Promise<{ stopped: number }> {
    const stopped = deleted
      ? await this.bindings.remove(principal.organizationId, workflowId)
      : await this.bindings.stop(principal.organizationId, workflowId);
    return { stopped };
  }

  /**
   * Connections and active subscriptions (what billing counts), and the triggers and connections that
   * need a look.
   */
  async overview({ organizationId }: Principal): Promise<EventsOverview> {
    const [connections, subscriptions, rows, unhealthyConnections] = await Promise.all([
      this.connectionRows.count(organizationId),
      this.bindings.activeCount(organizationId),
      this.bindings.unhealthy(organizationId),
      this.connectionRows.unhealthy(organizationId, UNHEALTHY_CONNECTIONS_MAX),
    ]);
    return {
      connections,
      subscriptions,
      unhealthyConnections,
      triggers: rows.map((row) => ({
        workflowId: row.workflowId,
        triggerNodeId: row.triggerNodeId,
        connectionId: row.connectionId,
        status: row.status,
        error:
          row.error ?? (row.health === null ? 'The connection was deleted.' : 'The connection is unhealthy.'),
        health: row.health,
      })),
    };
  }

  /** A trigger its app accepts: the organization's connection, a trigger the app has, a usable filter. */
  private async checked(
    organizationId: string,
    workflowId: string,
    trigger: EventTriggerBinding,
  ): Promise<Binding> {
    const ref = parseTriggerRef(trigger.trigger);
    if (!ref) throw refused(trigger, `${trigger.trigger} is not <provider>/<trigger-name>.`);
    const problem = filterProblem(trigger.filter);
    if (problem) throw refused(trigger, problem);
    const connection = await this.connections.open(trigger.connectionId);
    if (!connection || connection.organizationId !== organizationId) {
      throw refused(trigger, `no connection ${trigger.connectionId} in this organization.`);
    }
    if (ref.provider !== connection.integrationId || !hasTrigger(ref.provider, ref.trigger)) {
      throw refused(trigger, `a ${connection.integrationId} connection has no trigger ${trigger.trigger}.`);
    }
    if (connection.health !== 'healthy') {
      throw refused(trigger, `the connection ${connection.id} is unhealthy; reconnect it first.`);
    }
    this.providers.get(connection.integrationId).subscribe(connection, ref.trigger);
    return {
      workflowId,
      triggerNodeId: trigger.triggerNodeId,
      organizationId,
      connectionId: connection.id,
      trigger: trigger.trigger,
      filter: trigger.filter ?? null,
      filterKey: filterKey(trigger.filter),
      status: 'active',
      error: null,
    };
  }
}
