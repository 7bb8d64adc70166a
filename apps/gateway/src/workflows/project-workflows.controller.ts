import {
  CreateWorkflowDto,
  PageOf,
  PageQueryDto,
  type Principal,
  WorkflowDto,
  WorkflowSubjects,
  WorkflowSummaryDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';

/**
 * A project's workflows. The operation ids are those the API reference gave these routes when they
 * were `WorkflowsController`'s: clients generated from the document name their methods after them.
 */
@ApiTags('workflows')
@Controller('api/v1/projects/:projectId/workflows')
export class ProjectWorkflowsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ operationId: 'WorkflowsController_list', summary: "List a project's workflows" })
  @ApiOkResponse({ type: PageOf(WorkflowSummaryDto) })
  @ApiErrors('invalid_request', 'project_not_found')
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Query() query: PageQueryDto,
  ) {
    return this.rpc.request(WorkflowSubjects.list, principal, { projectId, query });
  }

  @Post()
  @BodyLimit('diagram')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'WorkflowsController_create',
    summary: 'Create a workflow',
    description: 'Its diagram becomes the draft.',
  })
  @ApiCreatedResponse({ type: WorkflowDto })
  @ApiErrors('invalid_request', 'project_not_found')
  create(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Body() body: CreateWorkflowDto,
  ) {
    return this.rpc.request(WorkflowSubjects.create, principal, { projectId, body });
  }
}
