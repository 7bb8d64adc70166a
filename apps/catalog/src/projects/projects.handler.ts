import {
  CatalogSubjects,
  CreateProjectDto,
  PageQueryDto,
  type Principal,
  UpdateProjectDto,
} from '#contracts';
import { RpcData, RpcPrincipal } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { ProjectsService } from './projects.service.js';

@Controller()
export class ProjectsHandler {
  constructor(private readonly projects: ProjectsService) {}

  @MessagePattern(CatalogSubjects.projectsList)
  list(@RpcPrincipal() principal: Principal, @RpcData('data') query: PageQueryDto) {
    return this.projects.list(principal, query);
  }

  @MessagePattern(CatalogSubjects.projectsCreate)
  create(@RpcPrincipal() principal: Principal, @RpcData('data') input: CreateProjectDto) {
    return this.projects.create(principal, input);
  }

  @MessagePattern(CatalogSubjects.projectsGet)
  get(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.projects.get(principal, id);
  }

  @MessagePattern(CatalogSubjects.projectsUpdate)
  update(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.id') id: string,
    @RpcData('data.body') input: UpdateProjectDto,
  ) {
    return this.projects.update(principal, id, input);
  }

  @MessagePattern(CatalogSubjects.projectsDelete)
  delete(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.projects.delete(principal, id);
  }
}
