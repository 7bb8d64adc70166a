import type { Page } from '#common';

import { type AuditListReply, AuditListRequest } from '../audit/audit.messages.js';
import type { DeletedDto } from '../common/deleted.dto.js';
import { type NamesReply, NamesRequest, type WorkflowOverview } from '../dashboard/overview.messages.js';
import { EmptyRequest, IdAndBodyOf, IdAndQueryRequest, IdRequest } from '../messaging/common-requests.js';
import { returns, rpc } from '../messaging/subject-catalog.js';
import type { McpWorkflowToolsReply } from './mcp-tool.js';
import { PublishWorkflowDto } from './publish-workflow.dto.js';
import { type RunTarget, RunTargetRequest, type RunTargetsReply, RunTargetsRequest } from './run-target.js';
import { UpdateWorkflowDto } from './update-workflow.dto.js';
import { VersionRequest } from './version-request.js';
import {
  type CheckDraftReply,
  CheckDraftRequest,
  CreateWorkflowRequest,
  ListWorkflowsRequest,
  ProjectScopedRequest,
} from './workflow.messages.js';
import type { WorkflowDetailDto } from './workflow-detail.dto.js';
import type { WorkflowSummaryDto } from './workflow-summary.dto.js';
import type { WorkflowVersionDto } from './workflow-version.dto.js';
import type { WorkflowVersionDetailDto } from './workflow-version-detail.dto.js';
import type { WorkflowDto } from './workflow.dto.js';

export const WorkflowSubjects = {
  list: rpc('workflow.workflows.list', ListWorkflowsRequest, {
    callers: ['gateway'],
    reply: returns<Page<WorkflowSummaryDto>>(),
  }),
  create: rpc('workflow.workflows.create', CreateWorkflowRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowDto>(),
  }),
  /** The agent service's assistant reads the draft it edits. */
  get: rpc('workflow.workflows.get', IdRequest, {
    callers: ['gateway', 'agent'],
    reply: returns<WorkflowDetailDto>(),
  }),
  update: rpc('workflow.workflows.update', IdAndBodyOf(UpdateWorkflowDto), {
    callers: ['gateway'],
    reply: returns<WorkflowDto>(),
  }),
  delete: rpc('workflow.workflows.delete', IdRequest, { callers: ['gateway'], reply: returns<DeletedDto>() }),
  /** The publish rules without publishing: the assistant's proposals (docs/agents.md, "The assistant"). */
  checkDraft: rpc('workflow.workflows.check-draft', CheckDraftRequest, {
    callers: ['agent'],
    reply: returns<CheckDraftReply>(),
  }),
  publish: rpc('workflow.workflows.publish', IdAndBodyOf(PublishWorkflowDto), {
    callers: ['gateway'],
    reply: returns<WorkflowVersionDto>(),
  }),
  pause: rpc('workflow.workflows.pause', IdRequest, { callers: ['gateway'], reply: returns<WorkflowDto>() }),
  resume: rpc('workflow.workflows.resume', IdRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowDto>(),
  }),
  versionsList: rpc('workflow.versions.list', IdAndQueryRequest, {
    callers: ['gateway'],
    reply: returns<Page<WorkflowVersionDto>>(),
  }),
  /** One version with its diagram, for the console's read-only view (extension beyond the contract). */
  versionsGet: rpc('workflow.versions.get', VersionRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowVersionDetailDto>(),
  }),
  /** What a run executes; the runner asks before every start, and to check a workflow exists. */
  runTarget: rpc('workflow.workflows.run-target', RunTargetRequest, {
    callers: ['runner', 'events'],
    reply: returns<RunTarget>(),
  }),
  /** What runs of many published workflows execute, in one request (`RunTargetsRequest`). */
  runTargets: rpc('workflow.workflows.run-targets', RunTargetsRequest, {
    callers: ['runner'],
    reply: returns<RunTargetsReply>(),
  }),
  /**
   * Catalog, once it has marked a project deleted: every workflow of the project is marked deleted
   * (purged with its runs later, durably) and no workflow is created in it any more. Idempotent.
   */
  deleteForProject: rpc('workflow.workflows.delete-for-project', ProjectScopedRequest, {
    callers: ['catalog'],
    reply: returns<{ deleted: number }>(),
  }),
  /**
   * The organization's workflows offered on `/mcp`: published, not paused, their live version opted
   * in (`settings.mcp.enabled`), at most `MCP_TOOLS_MAX`, by name.
   */
  mcpTools: rpc('workflow.workflows.mcp-tools', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<McpWorkflowToolsReply>(),
  }),
  /** The dashboard's workflow counts. */
  overview: rpc('workflow.overview.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<WorkflowOverview>(),
  }),
  /** Current names of these workflows (deleted ones are absent), for the dashboard. */
  workflowNames: rpc('workflow.workflows.names', NamesRequest, {
    callers: ['gateway'],
    reply: returns<NamesReply>(),
  }),
  /** A page of this service's audit entries for the gateway's `GET /api/v1/audit`, which merges them. */
  auditList: rpc('workflow.audit.list', AuditListRequest, {
    callers: ['gateway'],
    reply: returns<AuditListReply>(),
  }),
} as const;
