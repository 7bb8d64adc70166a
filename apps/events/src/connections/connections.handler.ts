import {
  type AdminConnectionCreate,
  type AdminConnectionRotate,
  type CreateConnectionDto,
  EventsSubjects,
  type IdAndBody,
  type IdRequest,
  type PageQueryDto,
  type Principal,
  servicePrincipal,
  type UpdateConnectionDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { ConnectionsService } from './connections.service.js';

@Controller()
export class ConnectionsHandler {
  constructor(private readonly connections: ConnectionsService) {}

  @Handles(EventsSubjects.connectionsList)
  list(query: PageQueryDto, principal: Principal) {
    return this.connections.list(principal.organizationId, query);
  }

  @Handles(EventsSubjects.connectionsCreate)
  create(input: CreateConnectionDto, principal: Principal) {
    return this.connections.create(principal, input);
  }

  @Handles(EventsSubjects.connectionsUpdate)
  update({ id, body }: IdAndBody<UpdateConnectionDto>, principal: Principal) {
    return this.connections.update(principal, id, body);
  }

  @Handles(EventsSubjects.connectionsRotateSendingSecret)
  rotateSendingSecret({ id }: IdRequest, principal: Principal) {
    return this.connections.rotateSendingSecret(principal, id);
  }

  @Handles(EventsSubjects.connectionsDelete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.connections.delete(principal, id);
  }

  @Handles(EventsSubjects.connectionsSummary)
  async summary(_request: object, principal: Principal) {
    return { connections: await this.connections.summaries(principal.organizationId) };
  }

  @Handles(EventsSubjects.adminConnectionCreate)
  async adminCreate({ organizationId, ...input }: AdminConnectionCreate) {
    const { id, secret, sendingSecret } = await this.connections.create(
      servicePrincipal(organizationId),
      input,
    );
    return { connectionId: id, ...(secret ? { secret } : {}), ...(sendingSecret ? { sendingSecret } : {}) };
  }

  @Handles(EventsSubjects.adminConnectionRotateSendingSecret)
  adminRotateSendingSecret({ organizationId, connectionId }: AdminConnectionRotate) {
    return this.connections.rotateSendingSecret(servicePrincipal(organizationId), connectionId);
  }
}
