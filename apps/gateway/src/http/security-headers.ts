import type { IncomingMessage, ServerResponse } from 'node:http';

import helmet, { type HelmetOptions } from 'helmet';

type Directives = Record<string, string[]>;

/**
 * The console's policy: everything it loads is its own (Vite emits no inline script or style), it is
 * never framed, and no plugin or `<base>` can redirect it.
 */
const DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
};

/** The reference page (Swagger UI, served by @nestjs/swagger) writes its own `<style>` elements. */
const REFERENCE_DIRECTIVES: Directives = { ...DIRECTIVES, 'style-src': ["'self'", "'unsafe-inline'"] };

function options(directives: Directives, https: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: https ? { ...directives, 'upgrade-insecure-requests': [] } : directives,
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
  };
}

/**
 * Headers every answer carries (the console's pages, the API, errors): a strict Content Security
 * Policy, no framing, no MIME sniffing, no referrer across origins, and, when browsers reach the
 * service over HTTPS (`PUBLIC_URL`), HSTS.
 */
export function securityHeaders(publicUrl: string): HelmetOptions {
  return options(DIRECTIVES, new URL(publicUrl).protocol === 'https:');
}

/** The reference page's: the same, with inline styles. */
export function referenceSecurityHeaders(publicUrl: string): HelmetOptions {
  return options(REFERENCE_DIRECTIVES, new URL(publicUrl).protocol === 'https:');
}

type Apply = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * helmet's middlewares, built once: @fastify/helmet builds them again for every request (helmet's
 * options parsed, the policy validated and joined), a sixth of the gateway's throughput on a GET.
 */
export function securityHeadersFor(publicUrl: string): { api: Apply; reference: Apply } {
  const build = (settings: HelmetOptions): Apply => {
    const middleware = helmet(settings);
    return (request, response) => middleware(request, response, () => undefined);
  };
  return { api: build(securityHeaders(publicUrl)), reference: build(referenceSecurityHeaders(publicUrl)) };
}
