import { toWorkflowInsert, toWorkflowUpdate } from './workflow.mapper.js';

describe('workflow mapper', () => {
  it('writes only the columns a change names, a diagram as its JSON text', () => {
    expect(toWorkflowUpdate({})).toEqual({});
    expect(toWorkflowUpdate({ description: null, pausedAt: null })).toEqual({
      description: null,
      paused_at: null,
    });
    expect(toWorkflowUpdate({ diagram: { nodes: [], edges: [], b: 1, a: 2 }, publishedVersion: 3 })).toEqual({
      diagram: '{"nodes":[],"edges":[],"b":1,"a":2}',
      published_version: 3,
    });
  });

  it('inserts a diagram as its JSON text, leaving the columns with defaults to Postgres', () => {
    expect(
      toWorkflowInsert('id-1', {
        organizationId: 'org-a',
        projectId: 'project-1',
        name: 'W',
        description: null,
        diagram: { nodes: [], edges: [] },
        createdBy: null,
      }),
    ).toEqual({
      id: 'id-1',
      organization_id: 'org-a',
      project_id: 'project-1',
      name: 'W',
      description: null,
      diagram: '{"nodes":[],"edges":[]}',
      created_by: null,
    });
  });
});
