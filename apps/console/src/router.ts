import { createRootRoute, createRoute, createRouter, Navigate, Outlet } from '@tanstack/react-router';

import { SessionProvider, useSessionQuery } from './auth/session';
import { Layout } from './components/layout';
import { ErrorNotice, Loading } from './components/ui';
import { AgentPage, AgentsPage } from './pages/agents';
import { ApprovalsPage } from './pages/approvals';
import { BillingPage } from './pages/billing';
import { ConnectionsPage } from './pages/connections';
import { DashboardPage } from './pages/dashboard';
import { DatabasePage, DatabasesPage } from './pages/databases';
import { InvitationPage } from './pages/invitation';
import { KeysPage } from './pages/keys';
import { MembersPage } from './pages/members';
import { RunPage } from './pages/run';
import { SignInPage, SignUpPage } from './pages/sign-in';
import { SkillsPage } from './pages/skills';
import { WorkflowPage } from './pages/workflow';
import { WorkflowsPage } from './pages/workflows';

const rootRoute = createRootRoute({
  component: Outlet,
  notFoundComponent: () => (
    <main id="main" className="sign-in">
      <div className="card">
        <h1>Page not found</h1>
        <p>
          <a href="/">Back to the dashboard</a>
        </p>
      </div>
    </main>
  ),
});

const signInRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-in', component: SignInPage });
const signUpRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-up', component: SignUpPage });

/** An invitation's link: answered signed in or not, so outside the signed-in frame. */
const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invitations/$invitationId',
  component: InvitationPage,
  validateSearch: (search: Record<string, unknown>): { token: string } => ({
    token: typeof search.token === 'string' ? search.token : '',
  }),
});

/** Every page but sign-in: a signed-in member, or off to sign in. */
function SignedIn() {
  const query = useSessionQuery();
  if (query.isPending)
    return (
      <main id="main" className="sign-in">
        <Loading />
      </main>
    );
  if (query.isError)
    return (
      <main id="main" className="sign-in">
        <ErrorNotice error={query.error} title="Could not reach Flowmesh." />
      </main>
    );
  if (!query.data) return <Navigate to="/sign-in" replace />;
  return (
    <SessionProvider member={query.data}>
      <Layout>
        <Outlet />
      </Layout>
    </SessionProvider>
  );
}

const appRoute = createRoute({ getParentRoute: () => rootRoute, id: 'app', component: SignedIn });
const page = <P extends string>(path: P, component: () => React.ReactNode) =>
  createRoute({ getParentRoute: () => appRoute, path, component });

export const dashboardRoute = page('/', DashboardPage);
export const workflowsRoute = page('/workflows', WorkflowsPage);
export const workflowRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/workflows/$workflowId',
  component: WorkflowPage,
  validateSearch: (search: Record<string, unknown>): { tab?: string; version?: number } => ({
    ...(typeof search.tab === 'string' ? { tab: search.tab } : {}),
    ...(typeof search.version === 'number' ? { version: search.version } : {}),
  }),
});
export const runRoute = page('/runs/$runId', RunPage);
export const approvalsRoute = page('/approvals', ApprovalsPage);
export const agentsRoute = page('/agents', AgentsPage);
export const agentRoute = page('/agents/$agentId', AgentPage);
export const connectionsRoute = page('/connections', ConnectionsPage);
export const databasesRoute = page('/databases', DatabasesPage);
export const databaseRoute = page('/databases/$databaseId', DatabasePage);
export const skillsRoute = page('/skills', SkillsPage);
export const membersRoute = page('/members', MembersPage);
export const keysRoute = page('/keys', KeysPage);
export const billingRoute = page('/billing', BillingPage);

const routeTree = rootRoute.addChildren([
  signInRoute,
  signUpRoute,
  invitationRoute,
  appRoute.addChildren([
    dashboardRoute,
    workflowsRoute,
    workflowRoute,
    runRoute,
    approvalsRoute,
    agentsRoute,
    agentRoute,
    connectionsRoute,
    databasesRoute,
    databaseRoute,
    skillsRoute,
    membersRoute,
    keysRoute,
    billingRoute,
  ]),
]);

export const router = createRouter({ routeTree, defaultPreload: 'intent' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
