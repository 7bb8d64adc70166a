import {
  CatalogSubjects,
  CreateSkillDto,
  DeletedDto,
  PageOf,
  PageQueryDto,
  type Principal,
  SkillDto,
  UpdateSkillDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

@ApiTags('skills')
@Controller('api/v1/skills')
export class SkillsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: 'List skills' })
  @ApiOkResponse({
    type: PageOf(SkillDto),
    description: 'Organization skills and, for a signed-in member, their own.',
  })
  @ApiErrors('invalid_request')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.rpc.request(CatalogSubjects.skillsList, principal, query);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a skill' })
  @ApiCreatedResponse({ type: SkillDto })
  @ApiErrors('invalid_request', 'skill_name_taken')
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateSkillDto) {
    return this.rpc.request(CatalogSubjects.skillsCreate, principal, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a skill' })
  @ApiOkResponse({ type: SkillDto })
  @ApiErrors('invalid_request', 'skill_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(CatalogSubjects.skillsGet, principal, { id });
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update a skill' })
  @ApiOkResponse({ type: SkillDto })
  @ApiErrors('invalid_request', 'skill_not_found', 'skill_name_taken')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateSkillDto) {
    return this.rpc.request(CatalogSubjects.skillsUpdate, principal, { id, body });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a skill' })
  @ApiOkResponse({ type: DeletedDto })
  @ApiErrors('invalid_request', 'skill_not_found')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(CatalogSubjects.skillsDelete, principal, { id });
  }
}
