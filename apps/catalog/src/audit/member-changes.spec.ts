import { memberChangeOf } from './member-changes.js';

describe('memberChangeOf', () => {
  it('reads a removal, a role change and an invitation off the call and its answer', () => {
    expect(
      memberChangeOf(
        'POST /api/auth/organization/remove-member',
        { memberIdOrEmail: 'a@example.com' },
        { member: { id: 'm1', role: 'admin', organizationId: 'org', user: { email: 'a@example.com' } } },
      ),
    ).toEqual({
      action: 'member.removed',
      resource: { type: 'member', id: 'm1', name: 'a@example.com' },
      details: { role: 'admin' },
      organizationId: 'org',
    });
    expect(
      memberChangeOf(
        'POST /api/auth/organization/update-member-role',
        { memberId: 'm2', role: 'admin' },
        { id: 'm2', role: 'admin', organizationId: 'org', userId: 'u2' },
      ),
    ).toMatchObject({
      action: 'member.role_changed',
      resource: { id: 'm2', name: null },
      details: { role: 'admin' },
    });
    const invited = memberChangeOf(
      'POST /api/auth/organization/invite-member',
      { email: 'b@example.com', role: 'member' },
      { id: 'i1', email: 'b@example.com', role: 'member', organizationId: 'org', token: 'never-kept' },
    );
    expect(invited).toMatchObject({
      action: 'invitation.created',
      resource: { id: 'i1', name: 'b@example.com' },
    });
    expect(JSON.stringify(invited)).not.toContain('never-kept');
  });

  it('records nothing for other calls', () => {
    expect(memberChangeOf('POST /api/auth/sign-out', {}, {})).toBeNull();
    expect(memberChangeOf('GET /api/auth/organization/list-members', {}, {})).toBeNull();
  });
});
