import type { IncomingHttpHeaders } from 'node:http';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a request authenticated by its session cookie alone may not change anything, or null when it
 * may. Browsers attach cookies to requests other pages make (a form posting `text/plain` needs no
 * preflight), and SameSite=Lax lets a sibling subdomain through; what they never let a page forge is
 * `Origin`, sent with every POST, PUT, PATCH and DELETE, and `Sec-Fetch-Site`. A change must carry
 * one that names this service; a client that sends neither is not a browser and authenticates with
 * `Authorization: Bearer` instead.
 */
export function crossSiteRefusal(
  method: string,
  headers: IncomingHttpHeaders,
  publicOrigin: string,
): string | null {
  if (SAFE_METHODS.has(method)) return null;
  const origin = headers.origin;
  if (origin !== undefined) {
    return origin === publicOrigin
      ? null
      : `A change made with a session cookie must come from ${publicOrigin}, not ${origin}.`;
  }
  const site = headers['sec-fetch-site'];
  if (site === 'same-origin' || site === 'none') return null;
  return site === undefined
    ? 'A change made with a session cookie must carry the Origin header (browsers send it); other clients send "Authorization: Bearer <token>".'
    : `A change made with a session cookie must come from this site (Sec-Fetch-Site: ${site}).`;
}
