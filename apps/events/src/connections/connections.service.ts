import { DomainException, type Page } from '#common';
import {
  CONNECTION_CONFIG_MAX_BYTES,
  type ConnectionDto,
  type ConnectionSummary,
  type CreatedConnectionDto,
  type CreateConnectionDto,
  type DeletedDto,
  type PageQueryDto,
} from '#contracts';
import { isId, mapPage, newId } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';

import { LOGGER } from '../events.tokens.js';
import type { OpenConnection } from '../integrations/app-provider.js';
import { AppProviders } from '../integrations/app-providers.js';
import type { ConnectionEntity } from './connection.entity.js';
import { ConnectionRepository } from './connection.repository.js';
import { CredentialCipher } from './credential-cipher.js';

/**
 * How long an opened connection is reused. Webhook ingress opens the connection of every delivery;
 * a deletion is seen at once by the replica that made it and within this by the others (their
 * deliveries are then stored and reported `dead`).
 */
const OPEN_CONNECTION_TTL_MS = 5_000;

const toConnectionDto = (connection: ConnectionEntity): ConnectionDto => ({
  id: connection.id,
  integrationId: connection.integrationId,
  name: connection.name,
  health: connection.health,
  createdAt: connection.createdAt.toISOString(),
  updatedAt: connection.updatedAt.toISOString(),
});

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

  async create(organizationId: string, input: CreateConnectionDto): Promise<CreatedConnectionDto> {
    const config = input.config ?? {};
    if (Buffer.byteLength(JSON.stringify(config)) > CONNECTION_CONFIG_MAX_BYTES) {
      throw DomainException.invalidRequest([
        { path: 'config', message: `config must be at most ${CONNECTION_CONFIG_MAX_BYTES} bytes of JSON` },
      ]);
    }
    const { credentials, secret } = this.providers.get(input.integrationId).connect(config);
    const id = newId();
    const created = await this.connections.insert({
      id,
      organizationId,
      integrationId: input.integrationId,
      name: input.name,
      credentials: this.cipher.seal(id, credentials),
    });
    return { ...toConnectionDto(created), ...(secret === undefined ? {} : { secret }) };
  }

  async list(organizationId: string, query: PageQueryDto): Promise<Page<ConnectionDto>> {
    return mapPage(await this.connections.list(organizationId, query), toConnectionDto);
  }

  summaries(organizationId: string): Promise<ConnectionSummary[]> {
    return this.connections.summaries(organizationId);
  }

  async delete(organizationId: string, id: string): Promise<DeletedDto> {
    if (!isId(id) || !(await this.connections.delete(organizationId, id))) {
      throw new DomainException('not_found', `No connection with id ${id}.`);
    }
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
      credentials: this.cipher.open(sealed.id, sealed.credentials),
    };
    this.opened.set(id, { connection });
    return connection;
  }

  /** The connection of this organization, opened; not_found for another organization's. */
  async openOwned(organizationId: string, id: string): Promise<OpenConnection> {
    const connection = await this.open(id);
    if (!connection || connection.organizationId !== organizationId) {
      throw new DomainException('not_found', `No connection with id ${id}.`);
    }
    return connection;
  }

  async setHealth(connection: OpenConnection, health: OpenConnection['health']): Promise<void> {
    if (connection.health === health) return;
    await this.connections.setHealth(connection.id, health);
    this.opened.delete(connection.id);
  }
}
