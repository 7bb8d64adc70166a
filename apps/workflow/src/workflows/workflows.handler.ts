import {
  CreateWorkflowDto,
  PageQueryDto,
  type Principal,
  PublishWorkflowDto,
  type RunTargetRequest,
  UpdateWorkflowDto,
  WorkflowSubjects,
} from '#contracts';
import { RpcData, RpcPrincipal } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { WorkflowsService } from './workflows.service.js';

@Controller()
export class WorkflowsHandler {
  constructor(private readonly workflows: WorkflowsService) {}

  @MessagePattern(WorkflowSubjects.list)
  list(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.projectId') projectId: string,
    @RpcData('data.query') query: PageQueryDto,
  ) {
    return this.workflows.list(principal, projectId, query);
  }

  @MessagePattern(WorkflowSubjects.create)
  create(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.projectId') projectId: string,
    @RpcData('data.body') body: CreateWorkflowDto,
  ) {
    return this.workflows.create(principal, projectId, body);
  }

  @MessagePattern(WorkflowSubjects.get)
  get(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.workflows.get(principal, id);
  }

  @MessagePattern(WorkflowSubjects.update)
  update(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.id') id: string,
    @RpcData('data.body') body: UpdateWorkflowDto,
  ) {
    return this.workflows.update(principal, id, body);
  }

  @MessagePattern(WorkflowSubjects.delete)
  delete(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.workflows.delete(principal, id);
  }

  @MessagePattern(WorkflowSubjects.publish)
  publish(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.id') id: string,
    @RpcData('data.body') body: PublishWorkflowDto,
  ) {
    return this.workflows.publish(principal, id, body);
  }

  @MessagePattern(WorkflowSubjects.pause)
  pause(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.workflows.pause(principal, id);
  }

  @MessagePattern(WorkflowSubjects.resume)
  resume(@RpcPrincipal() principal: Principal, @RpcData('data.id') id: string) {
    return this.workflows.resume(principal, id);
  }

  @MessagePattern(WorkflowSubjects.versionsList)
  listVersions(
    @RpcPrincipal() principal: Principal,
    @RpcData('data.id') id: string,
    @RpcData('data.query') query: PageQueryDto,
  ) {
    return this.workflows.listVersions(principal, id, query);
  }

  @MessagePattern(WorkflowSubjects.runTarget)
  runTarget(@RpcPrincipal() principal: Principal, @RpcData('data') request: RunTargetRequest) {
    return this.workflows.runTarget(principal, request);
  }

  @MessagePattern(WorkflowSubjects.deleteForProject)
  deleteForProject(@RpcPrincipal() principal: Principal, @RpcData('data.projectId') projectId: string) {
    return this.workflows.deleteForProject(principal, projectId);
  }
}
