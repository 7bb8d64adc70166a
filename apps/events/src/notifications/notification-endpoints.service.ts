import { DomainException, type Page } from '#common';
import {
  type CreatedNotificationEndpointDto,
  type CreateNotificationEndpointDto,
  type DeletedDto,
  NOTIFICATION_ENDPOINTS_MAX,
  type NotificationEndpointDto,
  type NotificationSecretDto,
  type PageQueryDto,
  type Principal,
} from '#contracts';
import { isId, mapPage, newId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { ConnectionsService } from '../connections/connections.service.js';
import { CredentialCipher } from '../connections/credential-cipher.js';
import { EventsConfig } from '../events.config.js';
import type { OpenConnection } from '../integrations/app-provider.js';
import { httpCredentialsOf } from '../integrations/http.provider.js';
import { newWebhookSecret } from '../integrations/webhook-secret.js';
import { OutboundHttp } from '../outbound/outbound-http.js';
import { endpointSecretKey, type NotificationEndpointRecord } from './notification-endpoint.mapper.js';
import { NotificationEndpointRepository } from './notification-endpoint.repository.js';

/** The integrations a notification may go through: the ones that POST to a URL of the caller's. */
const NOTIFYING_INTEGRATIONS = new Set(['http', 'webhook']);

const toDto = (endpoint: NotificationEndpointRecord): NotificationEndpointDto => ({
  id: endpoint.id,
  name: endpoint.name,
  connectionId: endpoint.connectionId,
  url: endpoint.url,
  createdAt: endpoint.createdAt.toISOString(),
});

const notFound = (id: string) => DomainException.notFound('notification_endpoint', id);

const refuse = (path: string, message: string) => DomainException.invalidRequest([{ path, message }]);

/** An endpoint ready to be sent to: where, with which secret, through which connection. */
export interface OpenNotificationEndpoint extends NotificationEndpointRecord {
  secret: string;
}

/** The organization's notification endpoints (docs/notifications.md). */
@Injectable()
export class NotificationEndpointsService {
  private readonly allowHttp: boolean;

  constructor(
    private readonly endpoints: NotificationEndpointRepository,
    private readonly connections: ConnectionsService,
    private readonly cipher: CredentialCipher,
    private readonly http: OutboundHttp,
    config: EventsConfig,
  ) {
    // Plain HTTP goes with the setting that lets actions call private networks: tests and closed
    // networks, where the receiver is a local server without a certificate.
    this.allowHttp = config.ACTIONS_ALLOW_PRIVATE_NETWORKS;
  }

  async create(
    principal: Principal,
    input: CreateNotificationEndpointDto,
  ): Promise<CreatedNotificationEndpointDto> {
    const url = this.endpointUrl(input.url);
    const connection = await this.connections.open(input.connectionId);
    if (!connection || connection.organizationId !== principal.organizationId) {
      throw refuse('connectionId', `No connection ${input.connectionId} in this organization.`);
    }
    checkConnection(connection, url);
    const id = newId();
    const secret = newWebhookSecret();
    const created = await this.endpoints.insert(
      {
        id,
        organizationId: principal.organizationId,
        name: input.name,
        connectionId: connection.id,
        url: url.toString(),
        secret: this.cipher.seal(endpointSecretKey(id), { secret }),
      },
      NOTIFICATION_ENDPOINTS_MAX,
      principal,
    );
    if (!created) {
      throw DomainException.invalidRequest(
        [
          {
            path: '',
            message: `an organization has at most ${NOTIFICATION_ENDPOINTS_MAX} notification endpoints`,
          },
        ],
        `This organization has ${NOTIFICATION_ENDPOINTS_MAX} notification endpoints already; delete one first.`,
      );
    }
    return { ...toDto(created), secret };
  }

  async list(principal: Principal, query: PageQueryDto): Promise<Page<NotificationEndpointDto>> {
    return mapPage(await this.endpoints.list(principal.organizationId, query), toDto);
  }

  async get(principal: Principal, id: string): Promise<NotificationEndpointDto> {
    return toDto(await this.find(principal, id));
  }

  /** The organization's endpoint, or notification_endpoint_not_found. */
  async find(principal: Principal, id: string): Promise<NotificationEndpointRecord> {
    const endpoint = isId(id) ? await this.endpoints.find(principal.organizationId, id) : null;
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  async delete(principal: Principal, id: string): Promise<DeletedDto> {
    if (!isId(id) || !(await this.endpoints.delete(principal.organizationId, id, principal))) {
      throw notFound(id);
    }
    return { deleted: true };
  }

  /** A new signing secret, shown this once; attempts from now on are signed with it. */
  async rotateSecret(principal: Principal, id: string): Promise<NotificationSecretDto> {
    const secret = newWebhookSecret();
    const box = this.cipher.seal(endpointSecretKey(id), { secret });
    if (!isId(id) || !(await this.endpoints.setSecret(principal.organizationId, id, box, principal))) {
      throw notFound(id);
    }
    return { secret };
  }

  async existing(principal: Principal, ids: string[]): Promise<string[]> {
    return this.endpoints.existing(principal.organizationId, ids.filter(isId));
  }

  /** The endpoint with its secret opened, whichever organization it belongs to; null when it is gone. */
  async open(id: string): Promise<OpenNotificationEndpoint | null> {
    const sealed = await this.endpoints.findSealed(id);
    if (!sealed) return null;
    const { secret } = this.cipher.open(endpointSecretKey(id), sealed.secret);
    return {
      id: sealed.id,
      organizationId: sealed.organizationId,
      name: sealed.name,
      connectionId: sealed.connectionId,
      url: sealed.url,
      createdAt: sealed.createdAt,
      secret: String(secret),
    };
  }

  /** An HTTPS URL the outbound guard accepts (plain HTTP too when private networks are allowed). */
  private endpointUrl(raw: string): URL {
    const url = this.http.check(raw);
    if (url.protocol !== 'https:' && !this.allowHttp) {
      throw refuse('url', 'url must be https');
    }
    return url;
  }
}

/**
 * The connection must POST to URLs of the caller's choosing, and an `http` connection's headers must
 * be allowed to go to this URL: an endpoint whose deliveries would silently go without them is
 * refused now rather than failing at the endpoint later.
 */
function checkConnection(connection: OpenConnection, url: URL): void {
  if (!NOTIFYING_INTEGRATIONS.has(connection.integrationId)) {
    throw refuse(
      'connectionId',
      `a notification goes through an http or webhook connection; ${connection.id} is a ${connection.integrationId} connection`,
    );
  }
  if (connection.integrationId !== 'http') return;
  const { held, origins } = httpCredentialsOf(connection.credentials);
  if (!held) return;
  if (origins === null) {
    throw refuse(
      'connectionId',
      'the connection holds headers but names no origins they may be sent to; an owner or admin sets them first (PATCH /app/connections/{id})',
    );
  }
  if (!origins.includes(url.origin)) {
    throw refuse(
      'url',
      `the connection's headers go only to ${origins.join(', ')}, not to ${url.origin}: add it to the connection's allowed origins, or choose another connection`,
    );
  }
}
