import { DomainException } from '#common';
import { ALLOWED_ORIGINS_MAX } from '#contracts';

/**
 * The origins a connection's credentials may be sent to: `scheme://host[:port]` each, written as a
 * browser writes an origin. A path, query, user or wildcard is refused rather than dropped, so that
 * what a member reads back is what they meant; the port is kept (another port is another server).
 */
export function originsInput(value: unknown, path: string): string[] {
  const refuse = (message: string) => DomainException.invalidRequest([{ path, message }]);
  if (!Array.isArray(value) || value.length === 0) {
    throw refuse(
      'allowedOrigins must list the origins the headers may be sent to, e.g. ["https://api.example.com"]',
    );
  }
  if (value.length > ALLOWED_ORIGINS_MAX) throw refuse(`at most ${ALLOWED_ORIGINS_MAX} origins`);
  const origins = value.map((entry: unknown) => {
    if (typeof entry !== 'string') throw refuse('each origin must be text');
    if (entry.includes('*')) throw refuse(`${entry}: no wildcards; name each origin`);
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw refuse(`${entry} is not an origin such as https://api.example.com`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`${entry} must be http or https`);
    if (url.username || url.password || url.pathname !== '/' || /[?#]/.test(entry)) {
      throw refuse(`${entry} must be only scheme, host and port, such as https://api.example.com`);
    }
    return url.origin;
  });
  return [...new Set(origins)];
}
