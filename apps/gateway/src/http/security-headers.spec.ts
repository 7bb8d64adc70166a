import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import { referenceSecurityHeaders, securityHeaders, securityHeadersFor } from './security-headers.js';

type Policy = { directives: Record<string, string[]> };

describe('securityHeaders', () => {
  it('sets its headers with helmet, the reference page with inline styles', () => {
    const headers = (apply: (request: IncomingMessage, response: ServerResponse) => void) => {
      const response = new ServerResponse(new IncomingMessage(new Socket()));
      apply(response.req, response);
      return response.getHeaders();
    };
    const { api, reference } = securityHeadersFor('http://localhost:3000');
    expect(headers(api)).toMatchObject({
      'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
    });
    expect(headers(api)['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers(reference)['content-security-policy']).toContain("style-src 'self' 'unsafe-inline'");
  });

  it('sends HSTS and upgrades requests only when browsers reach the service over HTTPS', () => {
    const plain = securityHeaders('http://localhost:3000');
    expect(plain.strictTransportSecurity).toBe(false);
    expect((plain.contentSecurityPolicy as Policy).directives).not.toHaveProperty(
      'upgrade-insecure-requests',
    );

    const secure = securityHeaders('https://flows.example.com');
    expect(secure.strictTransportSecurity).toEqual({ maxAge: 31_536_000 });
    expect((secure.contentSecurityPolicy as Policy).directives).toHaveProperty('upgrade-insecure-requests');
  });

  it('lets no page frame the console, nor run or style anything that is not its own', () => {
    const { directives } = securityHeaders('http://localhost:3000').contentSecurityPolicy as Policy;
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'"]);
  });

  it('lets the reference page write its own styles, and nothing else more', () => {
    const console = (securityHeaders('http://localhost:3000').contentSecurityPolicy as Policy).directives;
    const reference = (referenceSecurityHeaders('http://localhost:3000').contentSecurityPolicy as Policy)
      .directives;
    expect(reference['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect({ ...reference, 'style-src': console['style-src'] }).toEqual(console);
  });
});
