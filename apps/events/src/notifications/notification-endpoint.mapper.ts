import type { Selectable } from 'kysely';

import type { EventsNotificationEndpoints } from '../events.tables.js';

/** An endpoint as callers see it: everything but its secret. */
export interface NotificationEndpointRecord {
  id: string;
  organizationId: string;
  name: string;
  connectionId: string;
  url: string;
  createdAt: Date;
}

/** With its sealed secret (a CredentialCipher box): for this service's own use only. */
export interface SealedNotificationEndpoint extends NotificationEndpointRecord {
  secret: Buffer;
}

export type NewNotificationEndpoint = Omit<SealedNotificationEndpoint, 'createdAt'>;

export const NOTIFICATION_ENDPOINT_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'connection_id',
  'url',
  'created_at',
] as const;

type EndpointRow = Pick<
  Selectable<EventsNotificationEndpoints>,
  (typeof NOTIFICATION_ENDPOINT_COLUMNS)[number]
>;

export const toNotificationEndpointRecord = (row: EndpointRow): NotificationEndpointRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  connectionId: row.connection_id,
  url: row.url,
  createdAt: row.created_at,
});

export const toSealedNotificationEndpoint = (
  row: Selectable<EventsNotificationEndpoints>,
): SealedNotificationEndpoint => ({ ...toNotificationEndpointRecord(row), secret: row.secret });

/** What the secret box of an endpoint is bound to, so it opens on this endpoint's row alone. */
export const endpointSecretKey = (endpointId: string): string => `notification-endpoint:${endpointId}`;
