import { crossSiteRefusal } from './cross-site.util.js';

const ours = 'https://flows.example.com';

describe('crossSiteRefusal', () => {
  it('lets reads through from anywhere', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(crossSiteRefusal(method, { origin: 'http://evil.test' }, ours)).toBeNull();
    }
  });

  it("lets a change through from the service's own origin or a same-origin fetch", () => {
    expect(crossSiteRefusal('POST', { origin: ours }, ours)).toBeNull();
    expect(crossSiteRefusal('DELETE', { 'sec-fetch-site': 'same-origin' }, ours)).toBeNull();
    expect(crossSiteRefusal('PATCH', { 'sec-fetch-site': 'none' }, ours)).toBeNull();
  });

  it('refuses a change from another origin, a sibling site, or with neither header', () => {
    expect(crossSiteRefusal('POST', { origin: 'http://evil.test' }, ours)).toContain('http://evil.test');
    expect(crossSiteRefusal('POST', { origin: 'https://app.example.com' }, ours)).not.toBeNull();
    expect(crossSiteRefusal('PUT', { 'sec-fetch-site': 'same-site' }, ours)).toContain('same-site');
    expect(crossSiteRefusal('POST', { 'sec-fetch-site': 'cross-site' }, ours)).not.toBeNull();
    expect(crossSiteRefusal('POST', {}, ours)).toContain('Authorization: Bearer');
  });

  it('believes Origin over Sec-Fetch-Site when both are sent', () => {
    expect(
      crossSiteRefusal('POST', { origin: 'http://evil.test', 'sec-fetch-site': 'same-origin' }, ours),
    ).not.toBeNull();
  });
});
