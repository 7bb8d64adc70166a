import { DomainException, type Page } from '#common';
import {
  CONNECTION_CONFIG_MAX_BYTES,
  type ConnectionDto,
  type ConnectionSettings,
  type ConnectionSummary,
  type CreatedConnectionDto,
  type CreateConnectionDto,
  type DeletedDto,
  type PageQueryDto,
  type Principal,
  type SendingSecretDto,
  type UpdateConnectionDto,
} from '#contracts';
import { isId, mapPage, newId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';

import { LOGGER } from '../events.tokens.js';
import type { OpenConnection } from '../integrations/app-provider.js';
import { AppProviders } from '../integrations/app-providers.js';
import type { ConnectionRecord, SealedConnection } from './connection.mapper.js';
import { ConnectionRepository } from './connection.repository.js';
import { CredentialCipher } from './credential-cipher.js';

/**
 * How long an opened connection is reused. Webhook ingress opens the connection of every delivery;
 * a deletion is seen at once by the replica that made it and within this by the others (their
 * deliveries are then stored and reported `dead`).
 */
const OPEN_CONNECTION_TTL_MS = 5_000;

const toConnectionDto = (connection: ConnectionRecord, settings: ConnectionSettings = {}): ConnectionDto => ({
  id: connection.id,
  integrationId: connection.integrationId,
  name: connection.name,
  health: connection.health,
  ...settings,
  createdAt: connection.createdAt.toISOString(),
  updatedAt: connection.updatedAt.toISOString(),
});

const notFound = (id: string) => new DomainException('not_found', `No connection with id ${id}.`);

/**
 * Changing or deleting a connection can hand its credentials elsewhere or break the organization's
 * workflows, so it takes an owner or admin; any member may connect an app. (These routes take
 * sessions only, so no key reaches here; the admin CLI acts as an admin.)
 */
function checkManager(principal: Principal): void {
  if (principal.role !== 'owner' && principal.role !== 'admin') {
    throw new DomainException(
      'forbidden',
      "Only the organization's owners and admins change or delete its app connections.",
    );
  }
}

@Injectable()
export class ConnectionsService {
  private readonly opened = new LRUCache<string, { connection: OpenConnection | null }>({
    max: 10_000,
    ttl: OPEN_CONNECTION_TTL_MS,
  });

  constructor(
    private readonly connections: ConnectionRepository,
    private readonly providers: AppProviders,
    private readonly cipher: CredentialCipher,
    @Inject(LOGGER) logger: Logger,
  ) {
    if (cipher.isDevelopmentKey) {
      logger.warn(
        'CONNECTIONS_ENCRYPTION_KEY is not set: connection credentials are sealed with the public development key',
      );
    }
  }

  async create(caller: Principal, input: CreateConnectionDto): Promise<CreatedConnectionDto> {
    const { organizationId } = caller;
    const config = input.config ?? {};
    if (Buffer.byteLength(JSON.stringify(config)) > CONNECTION_CONFIG_MAX_BYTES) {
      throw DomainException.invalidRequest([
        { path: 'config', message: `config must be at most ${CONNECTION_CONFIG_MAX_BYTES} bytes of JSON` },
      ]);
    }
    const { credentials, secret, sendingSecret, keep } = await this.providers
      .get(input.integrationId)
      .connect(config);
    const id = newId();
    const created = await this.connections.insert(
      {
        id,
        organizationId,
        integrationId: input.integrationId,
        name: input.name,
        credentials: this.cipher.seal(id, credentials),
      },
      caller,
    );
    await keep?.(created);
    return {
      ...toConnectionDto(created, this.settingsOf(created.integrationId, credentials)),
      ...(secret === undefined ? {} : { secret }),
      ...(sendingSecret === undefined ? {} : { sendingSecret }),
    };
  }

  async list(organizationId: string, query: PageQueryDto): Promise<Page<ConnectionDto>> {
    return mapPage(await this.connections.list(organizationId, query), (sealed) =>
      toConnectionDto(sealed, this.settingsOf(sealed.integrationId, this.openBox(sealed))),
    );
  }

  /** Where an `http` connection's headers may go: owners and admins. */
  async update(principal: Principal, id: string, input: UpdateConnectionDto): Promise<ConnectionDto> {
    const sealed = await this.findManaged(principal, id);
    const provider = this.providers.get(sealed.integrationId);
    if (!provider.configure) {
      throw DomainException.invalidRequest([
        { path: 'allowedOrigins', message: `a ${sealed.integrationId} connection has nothing to change` },
      ]);
    }
    const credentials = provider.configure(this.openBox(sealed), input);
    const updated = await this.reseal(sealed, credentials, principal, 'connection.updated');
    return toConnectionDto(updated, this.settingsOf(updated.integrationId, credentials));
  }

  /** A new secret for `webhook__send` of a webhook connection, shown this once: owners and admins. */
  async rotateSendingSecret(principal: Principal, id: string): Promise<SendingSecretDto> {
    const sealed = await this.findManaged(principal, id);
    const provider = this.providers.get(sealed.integrationId);
    if (!provider.rotateSendingSecret) {
      throw DomainException.invalidRequest([
        { path: 'id', message: `a ${sealed.integrationId} connection has no sending secret` },
      ]);
    }
    const { credentials, sendingSecret } = provider.rotateSendingSecret(this.openBox(sealed));
    await this.reseal(sealed, credentials, principal, 'connection.sending_secret_rotated');
    return { sendingSecret };
  }

  summaries(organizationId: string): Promise<ConnectionSummary[]> {
    return this.connections.summaries(organizationId);
  }

  async delete(principal: Principal, id: string): Promise<DeletedDto> {
    await this.findManaged(principal, id);
    if (!(await this.connections.delete(principal.organizationId, id, principal))) throw notFound(id);
    this.opened.delete(id);
    return { deleted: true };
  }

  /** The connection with its credentials opened, or null when there is none with this id. */
  async open(id: string): Promise<OpenConnection | null> {
    if (!isId(id)) return null;
    const cached = this.opened.get(id);
    if (cached) return cached.connection;
    const sealed = await this.connections.findSealed(id);
    const connection: OpenConnection | null = sealed && {
      id: sealed.id,
      organizationId: sealed.organizationId,
      integrationId: sealed.integrationId,
      health: sealed.health,
      credentials: this.openBox(sealed),
    };
    this.opened.set(id, { connection });
    return connection;
  }

  /** The connection of this organization, opened; not_found for another organization's. */
  async openOwned(organizationId: string, id: string): Promise<OpenConnection> {
    const connection = await this.open(id);
    if (!connection || connection.organizationId !== organizationId) throw notFound(id);
    return connection;
  }

  async setHealth(connection: OpenConnection, health: OpenConnection['health']): Promise<void> {
    if (connection.health === health) return;
    await this.connections.setHealth(connection.id, health);
    this.opened.delete(connection.id);
  }

  private openBox(sealed: SealedConnection): Record<string, unknown> {
    return this.cipher.open(sealed.id, sealed.credentials);
  }

  private settingsOf(integrationId: SealedConnection['integrationId'], credentials: Record<string, unknown>) {
    return this.providers.get(integrationId).settings?.(credentials) ?? {};
  }

  /**
   * The organization's connection, for a caller who may change it. Another organization's is not
   * found whoever asks, as everywhere; the role is checked after, so it tells nothing about them.
   */
  private async findManaged(principal: Principal, id: string): Promise<SealedConnection> {
    const sealed = isId(id) ? await this.connections.findSealed(id) : null;
    if (!sealed || sealed.organizationId !== principal.organizationId) throw notFound(id);
    checkManager(principal);
    return sealed;
  }

  private async reseal(
    sealed: SealedConnection,
    credentials: Record<string, unknown>,
    caller: Principal,
    action: 'connection.updated' | 'connection.sending_secret_rotated',
  ) {
    const updated = await this.connections.setCredentials(
      sealed.organizationId,
      sealed.id,
      this.cipher.seal(sealed.id, credentials),
      caller,
      action,
    );
    if (!updated) throw notFound(sealed.id);
    // This replica uses the new credentials at once; the others within OPEN_CONNECTION_TTL_MS.
    this.opened.delete(sealed.id);
    return updated;
  }
}
