import { type ProjectRecord, projectUpdate, toProjectRecord } from './project.mapper.js';

describe('project mapper', () => {
  const at = new Date('2026-11-27T10:00:00.000Z');
  const project: ProjectRecord = {
    id: 'p-1',
    organizationId: 'org-a',
    name: 'Billing',
    description: null,
    createdBy: 'user-1',
    createdAt: at,
    updatedAt: at,
  };

  it('maps a row to a record', () => {
    expect(
      toProjectRecord({
        id: 'p-1',
        organization_id: 'org-a',
        name: 'Billing',
        description: null,
        created_by: 'user-1',
        created_at: at,
        updated_at: at,
      }),
    ).toEqual(project);
  });

  it('writes only the columns a change changes, and none when nothing changes', () => {
    expect(projectUpdate(project, { name: 'Invoices', description: null })).toEqual({ name: 'Invoices' });
    expect(projectUpdate(project, { description: 'kept' })).toEqual({ description: 'kept' });
    expect(projectUpdate(project, { name: 'Billing' })).toEqual({});
    expect(projectUpdate(project, {})).toEqual({});
  });
});
