import {
  CatalogSubjects,
  type CreateSkillDto,
  type IdAndBody,
  type IdRequest,
  type IdsRequest,
  type PageQueryDto,
  type Principal,
  type UpdateSkillDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { SkillsService } from './skills.service.js';

@Controller()
export class SkillsHandler {
  constructor(private readonly skills: SkillsService) {}

  @Handles(CatalogSubjects.skillsList)
  list(query: PageQueryDto, principal: Principal) {
    return this.skills.list(principal, query);
  }

  @Handles(CatalogSubjects.skillsCreate)
  create(input: CreateSkillDto, principal: Principal) {
    return this.skills.create(principal, input);
  }

  @Handles(CatalogSubjects.skillsGet)
  get({ id }: IdRequest, principal: Principal) {
    return this.skills.get(principal, id);
  }

  @Handles(CatalogSubjects.skillsUpdate)
  update({ id, body }: IdAndBody<UpdateSkillDto>, principal: Principal) {
    return this.skills.update(principal, id, body);
  }

  @Handles(CatalogSubjects.skillsExisting)
  async existing({ ids }: IdsRequest, principal: Principal) {
    return { ids: await this.skills.existing(principal, ids) };
  }

  @Handles(CatalogSubjects.skillsMount)
  async mount({ ids }: IdsRequest, principal: Principal) {
    return { skills: await this.skills.mount(principal, ids) };
  }

  @Handles(CatalogSubjects.skillsDelete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.skills.delete(principal, id);
  }
}
