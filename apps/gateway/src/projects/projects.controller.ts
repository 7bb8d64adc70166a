import {
  CatalogSubjects,
  CreateProjectDto,
  DeletedDto,
  PageOf,
  PageQueryDto,
  type Principal,
  ProjectDto,
  UpdateProjectDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

@ApiTags('projects')
@Controller('api/v1/projects')
export class ProjectsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: 'List projects' })
  @ApiOkResponse({ type: PageOf(ProjectDto) })
  @ApiErrors('invalid_request')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.rpc.request(CatalogSubjects.projectsList, principal, query);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a project' })
  @ApiCreatedResponse({ type: ProjectDto })
  @ApiErrors('invalid_request', 'plan_limit_reached')
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProjectDto) {
    return this.rpc.request(CatalogSubjects.projectsCreate, principal, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors('invalid_request', 'project_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(CatalogSubjects.projectsGet, principal, { id });
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update a project' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors('invalid_request', 'project_not_found')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateProjectDto) {
    return this.rpc.request(CatalogSubjects.projectsUpdate, principal, { id, body });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a project' })
  @ApiOkResponse({ type: DeletedDto })
  @ApiErrors('invalid_request', 'project_not_found')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(CatalogSubjects.projectsDelete, principal, { id });
  }
}
