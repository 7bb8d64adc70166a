import {
  type AdminConnectionCreate,
  type CreateConnectionDto,
  EventsSubjects,
  type IdRequest,
  type PageQueryDto,
  type Principal,
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
    return this.connections.create(principal.organizationId, input);
  }

  @Handles(EventsSubjects.connectionsDelete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.connections.delete(principal.organizationId, id);
  }

  @Handles(EventsSubjects.connectionsSummary)
  async summary(_request: object, principal: Principal) {
    return { connections: await this.connections.summaries(principal.organizationId) };
  }

  @Handles(EventsSubjects.adminConnectionCreate)
  async adminCreate({ organizationId, ...input }: AdminConnectionCreate) {
    const created = await this.connections.create(organizationId, input);
    return { connectionId: created.id, ...(created.secret === undefined ? {} : { secret: created.secret }) };
  }
}
