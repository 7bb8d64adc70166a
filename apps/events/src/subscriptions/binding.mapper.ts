import type { SubscriptionStatus } from '#contracts';
import type { Selectable } from 'kysely';

import type { EventsTriggerBindings } from '../events.tables.js';
import type { EventFilter } from './event-filter.js';

/** One App event trigger of a live version, as subscribed. */
export interface Binding {
  workflowId: string;
  triggerNodeId: string;
  organizationId: string;
  connectionId: string;
  trigger: string;
  filter: EventFilter | null;
  filterKey: string;
  status: SubscriptionStatus;
  error: string | null;
}

/** The columns a `Binding` is read from. */
export const BINDING_COLUMNS = [
  'workflow_id',
  'trigger_node_id',
  'organization_id',
  'connection_id',
  'trigger',
  'filter',
  'filter_key',
  'status',
  'error',
] as const;

export type BindingRow = Pick<Selectable<EventsTriggerBindings>, (typeof BINDING_COLUMNS)[number]>;

export const toBinding = (row: BindingRow): Binding => ({
  workflowId: row.workflow_id,
  triggerNodeId: row.trigger_node_id,
  organizationId: row.organization_id,
  connectionId: row.connection_id,
  trigger: row.trigger,
  filter: row.filter,
  filterKey: row.filter_key,
  status: row.status,
  error: row.error,
});

/** Bindings as one array per column, for `unnest`: a filter as its JSON text, none as null. */
export const bindingColumns = (bindings: Binding[]) => ({
  triggerNodeIds: bindings.map((binding) => binding.triggerNodeId),
  connectionIds: bindings.map((binding) => binding.connectionId),
  triggers: bindings.map((binding) => binding.trigger),
  filters: bindings.map((binding) => (binding.filter === null ? null : JSON.stringify(binding.filter))),
  filterKeys: bindings.map((binding) => binding.filterKey),
});

/** A subscription: the triggers with this connection, trigger and filter share it. */
export const subscriptionKey = (binding: Pick<Binding, 'connectionId' | 'trigger' | 'filterKey'>) =>
  `${binding.connectionId}\u0000${binding.trigger}\u0000${binding.filterKey}`;
