import { createRootRoute, Outlet } from '@tanstack/react-router';

import { SignInFrame } from '../components/sign-in-frame';

export const Route = createRootRoute({ component: Outlet, notFoundComponent: NotFound });

function NotFound() {
  return (
    <SignInFrame>
      <div className="card">
        <h1>Page not found</h1>
        <p>
          <a href="/">Back to the dashboard</a>
        </p>
      </div>
    </SignInFrame>
  );
}
