import { fileURLToPath } from 'node:url';

import { tanstackRouterGenerator } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console is built into dist/apps/console, which the gateway serves at `/`. During development
 * `npx vite apps/console` proxies the API to a running `npm start`.
 */
export default defineConfig({
  root,
  plugins: [
    // Writes src/routeTree.gen.ts from the files in src/routes (committed, like the API's types, so
    // the tree type-checks before a build). Generation only: the console stays one bundle.
    tanstackRouterGenerator({ target: 'react', quoteStyle: 'single', semicolons: true }),
    react(),
  ],
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/console', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/app', '/docs', '/hooks'].map((path) => [path, 'http://127.0.0.1:3000']),
    ),
  },
});
