import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';

import { browserRequest } from '../api/browser-client';
import type { Organization, Role, SessionInfo } from '../api/browser-routes';

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
    browserRequest('POST /api/auth/sign-in/email', { body: { email, password } }),
  signUp: (name: string, email: string, password: string) =>
    browserRequest('POST /api/auth/sign-up/email', { body: { name, email, password } }),
  signupMode: () => browserRequest('GET /api/auth/signup-mode'),
  signOut: () => browserRequest('POST /api/auth/sign-out'),
  session: () => browserRequest('GET /api/auth/get-session'),
  organizations: () => browserRequest('GET /api/auth/organization/list'),
  activeMember: () => browserRequest('GET /api/auth/organization/get-active-member'),
  setActive: (organizationId: string) =>
    browserRequest('POST /api/auth/organization/set-active', { body: { organizationId } }),
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
