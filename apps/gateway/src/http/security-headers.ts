import type { FastifyHelmetOptions } from '@fastify/helmet';

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

function policy(directives: Directives, https: boolean): FastifyHelmetOptions['contentSecurityPolicy'] {
  return {
    useDefaults: false,
    directives: https ? { ...directives, 'upgrade-insecure-requests': [] } : directives,
  };
}

/**
 * Headers every answer carries (the console's pages, the API, errors): a strict Content Security
 * Policy, no framing, no MIME sniffing, no referrer across origins, and, when browsers reach the
 * service over HTTPS (`PUBLIC_URL`), HSTS.
 */
export function securityHeaders(publicUrl: string): FastifyHelmetOptions {
  const https = new URL(publicUrl).protocol === 'https:';
  return {
    global: true,
    contentSecurityPolicy: policy(DIRECTIVES, https),
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
  };
}

/** The route-level helmet options of the reference's pages. */
export function referenceSecurityHeaders(publicUrl: string): FastifyHelmetOptions {
  return { contentSecurityPolicy: policy(REFERENCE_DIRECTIVES, new URL(publicUrl).protocol === 'https:') };
}
