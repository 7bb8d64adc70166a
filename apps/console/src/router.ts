import { createRouter } from '@tanstack/react-router';

import { routeTree } from './routeTree.gen';

/** The route tree is generated from the files in `routes/` (TanStack Router's Vite plugin). */
export const router = createRouter({ routeTree, defaultPreload: 'intent' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
