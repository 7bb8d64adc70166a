import { createFileRoute, Navigate, Outlet } from '@tanstack/react-router';

import { SessionProvider, useSessionQuery } from '../auth/session';
import { Layout } from '../components/layout';
import { SignInFrame } from '../components/sign-in-frame';
import { ErrorNotice, Loading } from '../components/ui';

/** Every page but sign-in and an invitation's: a signed-in member, or off to sign in. */
export const Route = createFileRoute('/_signed-in')({ component: SignedIn });

function SignedIn() {
  const query = useSessionQuery();
  if (query.isPending)
    return (
      <SignInFrame>
        <Loading />
      </SignInFrame>
    );
  if (query.isError)
    return (
      <SignInFrame>
        <ErrorNotice error={query.error} title="Could not reach Flowmesh." />
      </SignInFrame>
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
