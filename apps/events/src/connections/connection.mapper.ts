import type { ConnectionHealth, IntegrationId } from '#contracts';
import type { Selectable } from 'kysely';

import type { EventsConnections } from '../events.tables.js';

/** A connection as members see it: everything but its credentials. */
export interface ConnectionRecord {
  id: string;
  organizationId: string;
  integrationId: IntegrationId;
  name: string;
  health: ConnectionHealth;
  createdAt: Date;
  updatedAt: Date;
}

/** A connection with its sealed credentials (a CredentialCipher box): for this service's own use only. */
export interface SealedConnection extends ConnectionRecord {
  credentials: Buffer;
}

export interface NewConnection {
  id: string;
  organizationId: string;
  integrationId: IntegrationId;
  name: string;
  credentials: Buffer;
}

/** The columns of a `ConnectionRecord`: the credentials are read only where they are opened. */
export const CONNECTION_COLUMNS = [
  'id',
  'organization_id',
  'integration_id',
  'name',
  'health',
  'created_at',
  'updated_at',
] as const;

type ConnectionRow = Pick<Selectable<EventsConnections>, (typeof CONNECTION_COLUMNS)[number]>;

export const toConnectionRecord = (row: ConnectionRow): ConnectionRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  integrationId: row.integration_id,
  name: row.name,
  health: row.health,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toSealedConnection = (row: Selectable<EventsConnections>): SealedConnection => ({
  ...toConnectionRecord(row),
  credentials: row.credentials,
});

export const toConnectionColumns = (connection: NewConnection) => ({
  id: connection.id,
  organization_id: connection.organizationId,
  integration_id: connection.integrationId,
  name: connection.name,
  credentials: connection.credentials,
});
