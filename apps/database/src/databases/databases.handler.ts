import {
  type CreateDatabaseDto,
  type DatabaseOverview,
  DatabaseSubjects,
  type IdAndBody,
  type IdRequest,
  type IdsRequest,
  type PageQueryDto,
  type Principal,
  type UpdateDatabaseDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { DatabasesService } from './databases.service.js';

@Controller()
export class DatabasesHandler {
  constructor(private readonly databases: DatabasesService) {}

  @Handles(DatabaseSubjects.list)
  list(query: PageQueryDto, principal: Principal) {
    return this.databases.list(principal, query);
  }

  @Handles(DatabaseSubjects.create)
  create(input: CreateDatabaseDto, principal: Principal) {
    return this.databases.create(principal, input);
  }

  @Handles(DatabaseSubjects.get)
  get({ id }: IdRequest, principal: Principal) {
    return this.databases.get(principal, id);
  }

  @Handles(DatabaseSubjects.update)
  update({ id, body }: IdAndBody<UpdateDatabaseDto>, principal: Principal) {
    return this.databases.update(principal, id, body);
  }

  @Handles(DatabaseSubjects.existing)
  async existing({ ids }: IdsRequest, principal: Principal) {
    return { ids: await this.databases.existing(principal, ids) };
  }

  @Handles(DatabaseSubjects.overview)
  overview(_request: object, principal: Principal): Promise<DatabaseOverview> {
    return this.databases.overview(principal);
  }

  @Handles(DatabaseSubjects.delete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.databases.delete(principal, id);
  }
}
