import {
  CreateDatabaseDto,
  DatabaseSubjects,
  PageQueryDto,
  type Principal,
  UpdateDatabaseDto,
} from '#contracts';
import { RpcData, RpcPrincipal } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { DatabasesService } from './databases.service.js';

@Controller()
export class DatabasesHandler {
  constructor(private readonly databases: DatabasesService) {}

  @MessagePattern(DatabaseSubjects.list)
  list(@RpcPrincipal() principal: Principal, @RpcData('data') query: PageQueryDto) {
    return this.databases.list(principal, query);
  }

  @MessagePattern(DatabaseSubjects.create)
  create(@RpcPrincipal() principal: Principal, @RpcData('data') input: CreateDatabaseDto) {
    return this.databases.create(principal, input);
  }

  @MessagePattern(DatabaseSubjects.get)
  get(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.databases.get(principal, id);
  }

  @MessagePattern(DatabaseSubjects.update)
  update(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.id') id: string,
    @RpcData('data.body') input: UpdateDatabaseDto,
  ) {
    return this.databases.update(principal, id, input);
  }

  @MessagePattern(DatabaseSubjects.delete)
  delete(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.databases.delete(principal, id);
  }
}
