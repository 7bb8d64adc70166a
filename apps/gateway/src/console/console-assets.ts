import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type {} from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** First path segments that belong to the API and the service, never to the console's pages. */
const RESERVED = ['api', 'app', 'docs', 'hooks', 'health'];

/** Where `npm run build` puts the console (apps/console/vite.config.ts): dist/apps/console. */
export const DEFAULT_CONSOLE_DIR = join(import.meta.dirname, '..', '..', '..', 'console');

/**
 * The web console (apps/console), served at `/`: its built files as they are, and its index page for
 * any other page address a browser asks for (the console routes in the browser), so a reload or a
 * shared link of `/workflows/…` opens the console there. API paths keep their own answers: an
 * unknown `/api/…` is still 404 `not_found` in the contract's shape.
 */
export class ConsoleAssets {
  private constructor(private readonly root: string | null) {}

  /** Without a built console (a build that skipped it), `/` is simply not found. */
  static at(dir: string): ConsoleAssets {
    return new ConsoleAssets(existsSync(join(dir, 'index.html')) ? dir : null);
  }

  get enabled(): boolean {
    return this.root !== null;
  }

  register(app: NestFastifyApplication): void {
    if (!this.root) return;
    // Only `/assets/*`, Vite's content-named files: the console never shadows a path of the API, and
    // the index page (every other page address) is answered by `fallback`.
    const assets = join(this.root, 'assets');
    app.useStaticAssets({
      root: assets,
      prefix: '/assets/',
      index: false,
      cacheControl: false,
      // Assets never change under the same name. The index page (sent by `fallback` through this
      // plugin too) names the assets of the build that serves it, so a browser must ask for it again.
      setHeaders: (response, path) => {
        const value = path.startsWith(`${assets}/`) ? 'public, max-age=31536000, immutable' : 'no-cache';
        // @fastify/static 10 passes the Fastify reply, though its types still name a raw response.
        const target = response as unknown as Partial<Pick<FastifyReply, 'header'>> & typeof response;
        if (typeof target.header === 'function') void target.header('cache-control', value);
        else target.setHeader('cache-control', value);
      },
    });
  }

  /** Answers a browser's page request that no route took with the console's index page. */
  fallback(request: FastifyRequest, reply: FastifyReply): boolean {
    if (!this.root || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    const path = request.url.split('?')[0] ?? '/';
    const first = path.split('/')[1] ?? '';
    if (RESERVED.includes(first)) return false;
    if (!(request.headers.accept ?? '').includes('text/html')) return false;
    void reply.sendFile('index.html', this.root, { cacheControl: false });
    return true;
  }
}
