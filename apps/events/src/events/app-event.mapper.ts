import type { Selectable } from 'kysely';

import type { EventsAppEvents } from '../events.tables.js';
import { type Binding, type BindingRow, toBinding } from '../subscriptions/binding.mapper.js';

/** A stored app event. Fan-out bookkeeping lives in columns no route reads. */
export interface AppEventRecord {
  id: string;
  organizationId: string;
  connectionId: string;
  trigger: string;
  payload: string;
  firedAt: Date;
  receivedAt: Date;
}

export interface NewAppEvent {
  id: string;
  organizationId: string;
  connectionId: string;
  trigger: string;
  deliveryId: string;
  payload: string;
  firedAt: Date;
}

/** What a fan-out reads in one go: the event, and every trigger bound to its connection and trigger. */
export interface EventToFanOut extends Pick<
  AppEventRecord,
  'id' | 'organizationId' | 'connectionId' | 'trigger' | 'payload'
> {
  listenersResolved: boolean;
  bindings: Binding[];
}

export const APP_EVENT_COLUMNS = [
  'id',
  'organization_id',
  'connection_id',
  'trigger',
  'payload',
  'fired_at',
  'received_at',
] as const;

type AppEventRow = Pick<Selectable<EventsAppEvents>, (typeof APP_EVENT_COLUMNS)[number]>;

export const toAppEventRecord = (row: AppEventRow): AppEventRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  connectionId: row.connection_id,
  trigger: row.trigger,
  payload: row.payload,
  firedAt: row.fired_at,
  receivedAt: row.received_at,
});

type FanOutRow = Pick<
  Selectable<EventsAppEvents>,
  'id' | 'organization_id' | 'connection_id' | 'trigger' | 'payload' | 'listeners_resolved'
> & { bindings: BindingRow[] };

export const toEventToFanOut = (row: FanOutRow): EventToFanOut => ({
  id: row.id,
  organizationId: row.organization_id,
  connectionId: row.connection_id,
  trigger: row.trigger,
  payload: row.payload,
  listenersResolved: row.listeners_resolved,
  bindings: row.bindings.map(toBinding),
});
