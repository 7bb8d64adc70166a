import { browserRequest } from '../api/browser-client';
import type { Role } from '../api/browser-routes';

/** The active organization's members and invitations: better-auth's organization routes. */
export const organization = {
  members: () => browserRequest('GET /api/auth/organization/list-members', { query: { limit: 1000 } }),
  invitations: () => browserRequest('GET /api/auth/organization/list-invitations'),
  invite: (email: string, role: Role, resend = false) =>
    browserRequest('POST /api/auth/organization/invite-member', {
      body: { email, role, ...(resend ? { resend } : {}) },
    }),
  cancel: (invitationId: string) =>
    browserRequest('POST /api/auth/organization/cancel-invitation', { body: { invitationId } }),
  link: (invitationId: string) =>
    browserRequest('GET /api/auth/invitation/link', { query: { invitationId } }),
  setRole: (memberId: string, role: Role) =>
    browserRequest('POST /api/auth/organization/update-member-role', { body: { memberId, role } }),
  remove: (memberIdOrEmail: string) =>
    browserRequest('POST /api/auth/organization/remove-member', { body: { memberIdOrEmail } }),
};

/** The invitee's side, holding the link's id and token. */
export const invitation = {
  preview: (invitationId: string, token: string) =>
    browserRequest('GET /api/auth/invitation/preview', { query: { invitationId, token } }),
  signUp: (invitationId: string, token: string, name: string, password: string) =>
    browserRequest('POST /api/auth/invitation/sign-up', { body: { invitationId, token, name, password } }),
  accept: async (invitationId: string, token: string) => {
    await browserRequest('POST /api/auth/invitation/answer', { body: { invitationId, token, accept: true } });
  },
  reject: async (invitationId: string, token: string) => {
    await browserRequest('POST /api/auth/invitation/answer', {
      body: { invitationId, token, accept: false },
    });
  },
};
