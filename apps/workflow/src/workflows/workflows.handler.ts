import {
  type CheckDraftRequest,
  type CreateWorkflowRequest,
  type EmptyRequest,
  type IdAndBody,
  type IdAndQuery,
  type IdRequest,
  type ListWorkflowsRequest,
  type NamesReply,
  type NamesRequest,
  type Principal,
  type ProjectScopedRequest,
  type PublishWorkflowDto,
  type RunTargetRequest,
  type RunTargetsRequest,
  type UpdateWorkflowDto,
  type VersionRequest,
  type WorkflowOverview,
  WorkflowSubjects,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { WorkflowsService } from './workflows.service.js';

@Controller()
export class WorkflowsHandler {
  constructor(private readonly workflows: WorkflowsService) {}

  @Handles(WorkflowSubjects.list)
  list({ projectId, query }: ListWorkflowsRequest, principal: Principal) {
    return this.workflows.list(principal, projectId, query);
  }

  @Handles(WorkflowSubjects.create)
  create({ projectId, body }: CreateWorkflowRequest, principal: Principal) {
    return this.workflows.create(principal, projectId, body);
  }

  @Handles(WorkflowSubjects.get)
  get({ id }: IdRequest, principal: Principal) {
    return this.workflows.get(principal, id);
  }

  @Handles(WorkflowSubjects.update)
  update({ id, body }: IdAndBody<UpdateWorkflowDto>, principal: Principal) {
    return this.workflows.update(principal, id, body);
  }

  @Handles(WorkflowSubjects.delete)
  delete({ id }: IdRequest, principal: Principal) {
    return this.workflows.delete(principal, id);
  }

  @Handles(WorkflowSubjects.mcpTools)
  mcpTools(_request: EmptyRequest, principal: Principal) {
    return this.workflows.mcpTools(principal);
  }

  @Handles(WorkflowSubjects.checkDraft)
  checkDraft(request: CheckDraftRequest, principal: Principal) {
    return this.workflows.checkDraft(principal, request);
  }

  @Handles(WorkflowSubjects.publish)
  publish({ id, body }: IdAndBody<PublishWorkflowDto>, principal: Principal) {
    return this.workflows.publish(principal, id, body);
  }

  @Handles(WorkflowSubjects.pause)
  pause({ id }: IdRequest, principal: Principal) {
    return this.workflows.pause(principal, id);
  }

  @Handles(WorkflowSubjects.resume)
  resume({ id }: IdRequest, principal: Principal) {
    return this.workflows.resume(principal, id);
  }

  @Handles(WorkflowSubjects.versionsList)
  listVersions({ id, query }: IdAndQuery, principal: Principal) {
    return this.workflows.listVersions(principal, id, query);
  }

  @Handles(WorkflowSubjects.versionsGet)
  getVersion({ id, number }: VersionRequest, principal: Principal) {
    return this.workflows.getVersion(principal, id, number);
  }

  @Handles(WorkflowSubjects.runTarget)
  runTarget(request: RunTargetRequest, principal: Principal) {
    return this.workflows.runTarget(principal, request);
  }

  @Handles(WorkflowSubjects.runTargets)
  runTargets(request: RunTargetsRequest, principal: Principal) {
    return this.workflows.runTargets(principal, request);
  }

  @Handles(WorkflowSubjects.overview)
  overview(_request: object, principal: Principal): Promise<WorkflowOverview> {
    return this.workflows.overview(principal);
  }

  @Handles(WorkflowSubjects.workflowNames)
  names({ ids }: NamesRequest, principal: Principal): Promise<NamesReply> {
    return this.workflows.names(principal, ids);
  }

  @Handles(WorkflowSubjects.deleteForProject)
  deleteForProject({ projectId }: ProjectScopedRequest, principal: Principal) {
    return this.workflows.deleteForProject(principal, projectId);
  }
}
