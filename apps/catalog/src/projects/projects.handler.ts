import {
  CatalogSubjects,
  type CreateProjectDto,
  type IdAndBody,
  type IdRequest,
  type PageQueryDto,
  type Principal,
  type UpdateProjectDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { ProjectsService } from './projects.service.js';

@Controller()
export class ProjectsHandler {
  constructor(private readonly projects: ProjectsService) {}

  @Handles(CatalogSubjects.projectsList)
  list(query: PageQueryDto, principal: Principal) {
    return this.projects.list(principal, query);
  }

  @Handles(CatalogSubjects.projectsCreate)
  create(input: CreateProjectDto, principal: Principal) {
    return this.projects.create(principal, input);
  }

  @Handles(CatalogSubjects.projectsGet)
  get({ id }: IdRequest, principal: Principal) {
    return this.projects.get(principal, id);
  }

  @Handles(CatalogSubjects.projectsUpdate)
  update({ id, body }: IdAndBody<UpdateProjectDto>, principal: Principal) {
    return this.projects.update(principal, id, body);
  }

  @Handles(CatalogSubjects.projectsDelete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.projects.delete(principal, id);
  }
}
