import type { AuditEvent } from '#persistence';

/**
 * The audit entry of a members or invitations call better-auth answered with success, read off the
 * call, its body and its answer: better-auth makes these changes in its own transactions, so the
 * entry is written right after (docs/audit.md). Null for any other call. Only ids, emails and roles:
 * never an invitation's token.
 */
export function memberChangeOf(
  call: string,
  body: Record<string, unknown>,
  answer: Record<string, unknown>,
): (AuditEvent & { organizationId?: string }) | null {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const object = (value: unknown) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const member = object(answer.member);
  const user = object(member.user);
  switch (call) {
    case 'POST /api/auth/organization/invite-member':
      return {
        action: 'invitation.created',
        resource: { type: 'invitation', id: text(answer.id) ?? '', name: text(answer.email) ?? null },
        details: { role: text(answer.role) ?? text(body.role) },
        organizationId: text(answer.organizationId),
      };
    case 'POST /api/auth/organization/cancel-invitation':
      return {
        action: 'invitation.cancelled',
        resource: {
          type: 'invitation',
          id: text(answer.id) ?? text(body.invitationId) ?? '',
          name: text(answer.email) ?? null,
        },
        organizationId: text(answer.organizationId),
      };
    case 'POST /api/auth/organization/accept-invitation':
      return {
        action: 'member.joined',
        resource: { type: 'member', id: text(member.id) ?? '', name: text(user.email) ?? null },
        details: { role: text(member.role), invitationId: text(object(answer.invitation).id) },
        organizationId: text(member.organizationId),
      };
    case 'POST /api/auth/organization/update-member-role':
      return {
        action: 'member.role_changed',
        resource: {
          type: 'member',
          id: text(answer.id) ?? text(body.memberId) ?? '',
          name: text(object(answer.user).email) ?? null,
        },
        details: { role: text(answer.role) ?? text(body.role) },
        organizationId: text(answer.organizationId),
      };
    case 'POST /api/auth/organization/remove-member':
      return {
        action: 'member.removed',
        resource: { type: 'member', id: text(member.id) ?? '', name: text(user.email) ?? null },
        details: { role: text(member.role) },
        organizationId: text(member.organizationId),
      };
    default:
      return null;
  }
}
