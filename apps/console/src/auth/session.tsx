import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';

import { browserFetch } from '../api/client';

export type Role = 'owner' | 'admin' | 'member';

export interface SessionInfo {
  user: { id: string; email: string; name: string };
  session: { activeOrganizationId?: string | null };
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
}

export interface CurrentMember {
  session: SessionInfo;
  organizations: Organization[];
  organization: Organization | null;
  role: Role | null;
}

const SessionContext = createContext<CurrentMember | null>(null);

/** better-auth's browser routes, reached through the gateway at `/api/auth/*`. */
export const auth = {
  signIn: (email: string, password: string) =>
    browserFetch<{ token: string }>('/api/auth/sign-in/email', { method: 'POST', body: { email, password } }),
  signUp: (name: string, email: string, password: string) =>
    browserFetch<{ token: string }>('/api/auth/sign-up/email', {
      method: 'POST',
      body: { name, email, password },
    }),
  /** `SIGNUP` of the installation: whether strangers may make an account. */
  signupMode: () => browserFetch<{ mode: 'closed' | 'invite' | 'open' }>('/api/auth/signup-mode'),
  signOut: () => browserFetch<unknown>('/api/auth/sign-out', { method: 'POST', body: {} }),
  session: () => browserFetch<SessionInfo | null>('/api/auth/get-session'),
  organizations: () => browserFetch<Organization[]>('/api/auth/organization/list'),
  activeMember: () => browserFetch<{ role: string } | null>('/api/auth/organization/get-active-member'),
  setActive: (organizationId: string) =>
    browserFetch<unknown>('/api/auth/organization/set-active', { method: 'POST', body: { organizationId } }),
};

/** The signed-in member, their organizations and their role in the active one; null when signed out. */
export function useSessionQuery() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async (): Promise<CurrentMember | null> => {
      const session = await auth.session();
      if (!session?.user) return null;
      const [organizations, member] = await Promise.all([
        auth.organizations(),
        session.session.activeOrganizationId ? auth.activeMember().catch(() => null) : Promise.resolve(null),
      ]);
      const organization =
        organizations.find((candidate) => candidate.id === session.session.activeOrganizationId) ?? null;
      const role = member?.role;
      return {
        session,
        organizations,
        organization,
        role: role === 'owner' || role === 'admin' || role === 'member' ? role : null,
      };
    },
    staleTime: 60_000,
  });
}

export function SessionProvider({ member, children }: { member: CurrentMember; children: ReactNode }) {
  return <SessionContext.Provider value={member}>{children}</SessionContext.Provider>;
}

export function useMember(): CurrentMember {
  const member = useContext(SessionContext);
  if (!member) throw new Error('useMember outside a signed-in page');
  return member;
}

/** Owners and admins make keys and invite, change and remove members. */
export const managesOrganization = (role: Role | null) => role === 'owner' || role === 'admin';

/** Switches the active organization and forgets everything read for the previous one. */
export function useSwitchOrganization() {
  const client = useQueryClient();
  return async (organizationId: string) => {
    await auth.setActive(organizationId);
    // Every query answers for the organization: read them all again (the session's role too).
    await client.resetQueries();
  };
}
