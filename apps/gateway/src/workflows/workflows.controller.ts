import { DomainException } from '#common';
import {
  DeletedDto,
  PageOf,
  PageQueryDto,
  type Principal,
  PublishWorkflowDto,
  UpdateWorkflowDto,
  WorkflowDetailDto,
  WorkflowDto,
  WorkflowSubjects,
  WorkflowVersionDetailDto,
  WorkflowVersionDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';

@ApiTags('workflows')
@Controller('api/v1/workflows')
export class WorkflowsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get(':id')
  @ApiOperation({ summary: 'Get a workflow with its draft' })
  @ApiOkResponse({ type: WorkflowDetailDto })
  @ApiErrors('invalid_request', 'workflow_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(WorkflowSubjects.get, principal, { id });
  }

  @Patch(':id')
  @BodyLimit('diagram')
  @ApiOperation({
    summary: 'Update a workflow',
    description: 'Saves the draft; the live version changes only on publish.',
  })
  @ApiOkResponse({ type: WorkflowDto })
  @ApiErrors('invalid_request', 'workflow_not_found')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateWorkflowDto) {
    return this.rpc.request(WorkflowSubjects.update, principal, { id, body });
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a workflow',
    description: 'Deletes its draft and versions; its unfinished runs are terminated.',
  })
  @ApiOkResponse({ type: DeletedDto })
  @ApiErrors('invalid_request', 'workflow_not_found')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(WorkflowSubjects.delete, principal, { id });
  }

  @Post(':id/publish')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Publish the draft',
    description: 'Freezes the draft as the next version and makes it live.',
  })
  @ApiBody({ type: PublishWorkflowDto, required: false })
  @ApiCreatedResponse({ type: WorkflowVersionDto })
  @ApiErrors(
    'invalid_request',
    'invalid_workflow',
    'subscription_failed',
    'plan_limit_reached',
    'workflow_not_found',
  )
  publish(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: PublishWorkflowDto,
  ) {
    return this.rpc.request(WorkflowSubjects.publish, principal, { id, body });
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause a workflow',
    description: 'Stops its schedule and app event triggers; manual and API runs still work.',
  })
  @ApiOkResponse({ type: WorkflowDto })
  @ApiErrors('invalid_request', 'workflow_not_found')
  pause(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(WorkflowSubjects.pause, principal, { id });
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resume a workflow',
    description: "Turns the live version's triggers back on; nothing missed while paused runs.",
  })
  @ApiOkResponse({ type: WorkflowDto })
  @ApiErrors('invalid_request', 'subscription_failed', 'plan_limit_reached', 'workflow_not_found')
  resume(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(WorkflowSubjects.resume, principal, { id });
  }

  @Get(':id/versions')
  @ApiOperation({ summary: "List a workflow's versions", description: 'Newest (the live one) first.' })
  @ApiOkResponse({ type: PageOf(WorkflowVersionDto) })
  @ApiErrors('invalid_request', 'workflow_not_found')
  listVersions(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: PageQueryDto,
  ) {
    return this.rpc.request(WorkflowSubjects.versionsList, principal, { id, query });
  }

  @Get(':id/versions/:number')
  @ApiOperation({
    summary: 'Get a version with its diagram',
    description:
      'Extension beyond the contract: the diagram a published version froze, for reading it as it was (the console shows it read-only).',
  })
  @ApiOkResponse({ type: WorkflowVersionDetailDto })
  @ApiErrors('invalid_request', 'workflow_not_found', 'not_found')
  getVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('number') number: string,
  ) {
    if (!/^[1-9][0-9]{0,8}$/.test(number))
      throw DomainException.invalidRequest([
        { path: 'number', message: 'number must be a version number (1, 2, 3 …)' },
      ]);
    return this.rpc.request(WorkflowSubjects.versionsGet, principal, { id, number: Number(number) });
  }
}
