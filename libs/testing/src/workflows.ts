import { type ApiClient, expectData } from './api-client.js';
import type { Schemas, WithoutDefaults } from './api-schema.js';
import type { TestDiagram } from './diagrams.js';

export type NewWorkflow = Schemas['CreateWorkflowDto'];
export type PublishBody = WithoutDefaults<Schemas['PublishWorkflowDto']>;

/** The body that creates a workflow: a name, and `diagram` as its draft. */
export function aWorkflow(diagram?: TestDiagram, overrides: Partial<NewWorkflow> = {}): NewWorkflow {
  return { name: 'Test workflow', ...(diagram === undefined ? {} : { diagram }), ...overrides };
}

/** Publishes a workflow's draft (with no body unless one is given) and answers the version it became. */
export async function publishWorkflow(
  api: ApiClient,
  workflowId: string,
  body?: PublishBody,
): Promise<Schemas['WorkflowVersionDto']> {
  const published = await api.POST('/api/v1/workflows/{id}/publish', {
    params: { path: { id: workflowId } },
    ...(body === undefined ? {} : { body }),
  });
  return expectData(published, 201);
}

/** Creates a workflow in a project, its draft not published; answers the workflow with its draft. */
export async function createDraft(
  api: ApiClient,
  projectId: string,
  workflow: Partial<NewWorkflow> = {},
): Promise<Schemas['WorkflowDto']> {
  const created = await api.POST('/api/v1/projects/{projectId}/workflows', {
    params: { path: { projectId } },
    body: aWorkflow(undefined, workflow),
  });
  return expectData(created, 201);
}

/** Creates a workflow of `diagram` in a project, published unless `publish` is false; answers its id. */
export async function createWorkflow(
  api: ApiClient,
  projectId: string,
  diagram: TestDiagram,
  { publish = true, ...overrides }: Partial<NewWorkflow> & { publish?: boolean } = {},
): Promise<string> {
  const { id } = await createDraft(api, projectId, aWorkflow(diagram, overrides));
  if (publish) await publishWorkflow(api, id);
  return id;
}

/** A workflow with its draft and next run, read as it is now. */
export async function getWorkflow(api: ApiClient, workflowId: string): Promise<Schemas['WorkflowDetailDto']> {
  return expectData(await api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } }), 200);
}
