import { subject } from '../subjects.js';

export const WorkflowSubjects = {
  /** `{projectId, query: PageQueryDto}` → page of WorkflowSummaryDto. */
  list: subject('workflow.workflows.list'),
  /** `{projectId, body: CreateWorkflowDto}` → WorkflowDto. */
  create: subject('workflow.workflows.create'),
  /** `{id}` → WorkflowDetailDto. */
  get: subject('workflow.workflows.get'),
  /** `{id, body: UpdateWorkflowDto}` → WorkflowDto. */
  update: subject('workflow.workflows.update'),
  /** `{id}` → `{deleted: true}`. */
  delete: subject('workflow.workflows.delete'),
  /** `{id, body: PublishWorkflowDto}` → WorkflowVersionDto. */
  publish: subject('workflow.workflows.publish'),
  /** `{id}` → WorkflowDto. */
  pause: subject('workflow.workflows.pause'),
  /** `{id}` → WorkflowDto. */
  resume: subject('workflow.workflows.resume'),
  /** `{id, query: PageQueryDto}` → page of WorkflowVersionDto, newest first. */
  versionsList: subject('workflow.versions.list'),
  /** `RunTargetRequest` → `RunTarget`: what a run executes (the runner asks before every start). */
  runTarget: subject('workflow.workflows.run-target'),
  /** `{projectId}` → `{deleted: number}`: catalog deletes a project's workflows before the project. */
  deleteForProject: subject('workflow.workflows.delete-for-project'),
} as const;
