import { browserFetch } from '../api/client';
import type { Role } from './session';

export interface MemberRow {
  id: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { id: string; email: string; name: string };
}

export interface InvitationRow {
  id: string;
  email: string;
  role: string;
  status: 'pending' | 'accepted' | 'rejected' | 'canceled';
  expiresAt: string;
  createdAt: string;
}

/** What the holder of an invitation's link learns before signing in. */
export interface InvitationPreview {
  email: string;
  role: string;
  organizationName: string;
  expiresAt: string;
  hasAccount: boolean;
  canCreateAccount: boolean;
}

const post = <T>(path: string, body: unknown) => browserFetch<T>(path, { method: 'POST', body });

/** The active organization's members and invitations: better-auth's organization routes. */
export const organization = {
  members: () =>
    browserFetch<{ members: MemberRow[]; total: number }>('/api/auth/organization/list-members?limit=1000'),
  invitations: () => browserFetch<InvitationRow[]>('/api/auth/organization/list-invitations'),
  invite: (email: string, role: Role, resend = false) =>
    post<InvitationRow>('/api/auth/organization/invite-member', {
      email,
      role,
      ...(resend ? { resend } : {}),
    }),
  cancel: (invitationId: string) =>
    post<unknown>('/api/auth/organization/cancel-invitation', { invitationId }),
  /** The link to hand over, when invitations are not emailed (`link` is null when they are). */
  link: (invitationId: string) =>
    browserFetch<{ emailed: boolean; link: string | null }>(
      `/api/auth/invitation/link?invitationId=${encodeURIComponent(invitationId)}`,
    ),
  setRole: (memberId: string, role: Role) =>
    post<unknown>('/api/auth/organization/update-member-role', { memberId, role }),
  remove: (memberIdOrEmail: string) =>
    post<unknown>('/api/auth/organization/remove-member', { memberIdOrEmail }),
};

/** The invitee's side, holding the link's id and token. */
export const invitation = {
  preview: (invitationId: string, token: string) =>
    browserFetch<InvitationPreview>(
      `/api/auth/invitation/preview?${new URLSearchParams({ invitationId, token }).toString()}`,
    ),
  signUp: (invitationId: string, token: string, name: string, password: string) =>
    post<{ token: string }>('/api/auth/invitation/sign-up', { invitationId, token, name, password }),
  /** The link's token is the proof: it answers this invitation and no other. */
  accept: async (invitationId: string, token: string) => {
    await post<unknown>('/api/auth/invitation/answer', { invitationId, token, accept: true });
  },
  reject: async (invitationId: string, token: string) => {
    await post<unknown>('/api/auth/invitation/answer', { invitationId, token, accept: false });
  },
};
