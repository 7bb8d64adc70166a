import { CatalogSubjects, CreateSkillDto, PageQueryDto, type Principal, UpdateSkillDto } from '#contracts';
import { RpcData, RpcPrincipal } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { SkillsService } from './skills.service.js';

@Controller()
export class SkillsHandler {
  constructor(private readonly skills: SkillsService) {}

  @MessagePattern(CatalogSubjects.skillsList)
  list(@RpcPrincipal() principal: Principal, @RpcData('data') query: PageQueryDto) {
    return this.skills.list(principal, query);
  }

  @MessagePattern(CatalogSubjects.skillsCreate)
  create(@RpcPrincipal() principal: Principal, @RpcData('data') input: CreateSkillDto) {
    return this.skills.create(principal, input);
  }

  @MessagePattern(CatalogSubjects.skillsGet)
  get(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.skills.get(principal, id);
  }

  @MessagePattern(CatalogSubjects.skillsUpdate)
  update(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.id') id: string,
    @RpcData('data.body') input: UpdateSkillDto,
  ) {
    return this.skills.update(principal, id, input);
  }

  @MessagePattern(CatalogSubjects.skillsDelete)
  delete(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.skills.delete(principal, id);
  }
}
