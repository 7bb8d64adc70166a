import { request } from 'node:http';

import {
  adminCli,
  ApiClient,
  createDatabaseIn,
  createMember,
  createOrganization,
  createProject,
  type ErrorBody,
  fetchOpenApiDocument,
  type OrganizationFixture,
  queryDatabase,
  runningStack,
  sessionCookie,
  type ServiceProcess,
  startExtraGateway,
} from '#testing';

const stack = runningStack();

/**
 * Sends the headers of a request that announces `announced` bytes of body, and only the first
 * kilobyte of it: a server that read the body before answering would wait for the rest, and this
 * would time out. Answers the status and error code of the answer.
 */
function sendHeadersOnly(
  baseUrl: string,
  path: string,
  announced: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL(path, baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': announced, ...headers },
    });
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        outgoing.destroy();
        const body = JSON.parse(text || '{}') as Partial<ErrorBody>;
        resolve({ status: response.statusCode ?? 0, code: body.error?.code });
      });
    });
    outgoing.on('error', reject);
    outgoing.write(`["${'x'.repeat(1024)}`);
  });
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * Limits count in fixed windows (a minute per address, an hour per key and organization): a test that
 * counts to a limit first waits for a new window if the current one might end before it is done,
 * since the count starts over then.
 */
async function inOneWindow<T>(windowMs: number, test: () => Promise<T>): Promise<T> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  return test();
}

/** Each test its own client address, as a trusted proxy would report it: its own budgets. */
let addresses = 0;
const nextAddress = () => `203.0.113.${(addresses += 1)}`;

describe('the edge: nothing heavy before authentication, limits for strangers and tenants', () => {
  let org: OrganizationFixture;
  const anonymous = new ApiClient(stack.baseUrl);

  beforeAll(async () => {
    org = await createOrganization(stack);
  });

  describe('bodies', () => {
    it('answers a stranger before reading the body announced', async () => {
      const big = 30 * 1024 * 1024;
      expect(await sendHeadersOnly(stack.baseUrl, '/api/v1/projects', big)).toEqual({
        status: 401,
        code: 'unauthorized',
      });
      const forged = { authorization: 'Bearer fm_not-a-key' };
      expect(await sendHeadersOnly(stack.baseUrl, '/api/v1/projects', big, forged)).toEqual({
        status: 401,
        code: 'unauthorized',
      });
      // No route takes a body there, whoever asks.
      expect(await sendHeadersOnly(stack.baseUrl, '/api/v1/nothing-here', big)).toEqual({
        status: 404,
        code: 'not_found',
      });
      // Over the route's limit, a caller with a key is refused from the length alone.
      const keyed = { authorization: `Bearer ${org.apiKey}` };
      expect(await sendHeadersOnly(stack.baseUrl, '/api/v1/projects', big, keyed)).toEqual({
        status: 413,
        code: 'payload_too_large',
      });
      // Health answers meanwhile.
      expect((await anonymous.GET('/api/health')).response.status).toBe(200);
    });

    it('takes 1 MiB by default, and more on the routes that need it', async () => {
      const megabyte = 'x'.repeat(1024 * 1024);
      const project = await org.api.POST('/api/v1/projects', {
        body: { name: 'big', description: megabyte },
      });
      expect({ status: project.response.status, body: project.error }).toMatchObject({
        status: 413,
        body: { error: { code: 'payload_too_large' } },
      });

      // A query batch and a diagram may carry more.
      const databaseId = await createDatabaseIn(org.api, `edge-${Date.now()}`);
      const batch = await queryDatabase(org.api, databaseId, [
        { sql: 'SELECT length(?) AS n', params: [megabyte] },
      ]);
      // Counts come back as text: they may exceed what a JSON number holds exactly.
      expect({ status: batch.response.status, body: batch.data }).toMatchObject({
        status: 200,
        body: { results: [{ rows: [['1048576']] }] },
      });
      const projectId = await createProject(org.api, 'Edge');
      const workflow = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name: 'Large diagram', diagram: { nodes: [], edges: [], notes: megabyte } },
      });
      expect(workflow.response.status).toBe(201);
    });
  });

  describe('limits', () => {
    let trusting: ServiceProcess;
    let limited: ApiClient;
    let untrusting: ServiceProcess;
    let strict: ApiClient;

    beforeAll(async () => {
      const limits = {
        AUTH_RATE_LIMIT_PER_MINUTE: '3',
        HOOKS_RATE_LIMIT_PER_MINUTE: '3',
        FAILED_CREDENTIALS_PER_MINUTE: '3',
        ORGANIZATION_RATE_LIMIT_PER_HOUR: '6',
      };
      const [behindProxy, direct] = await Promise.all([
        startExtraGateway(stack, 'gateway-edge-proxied', { ...limits, TRUST_PROXY: 'true' }),
        startExtraGateway(stack, 'gateway-edge-direct', limits),
      ]);
      trusting = behindProxy.process;
      limited = new ApiClient(behindProxy.baseUrl);
      untrusting = direct.process;
      strict = new ApiClient(direct.baseUrl);
    });

    afterAll(async () => {
      await Promise.all([trusting?.stop(), untrusting?.stop()]);
    });

    it('limits sign-in attempts per client address', () =>
      inOneWindow(MINUTE, async () => {
        const address = nextAddress();
        // The browser routes (/api/auth, /hooks) are not in the document: through raw.
        const attempt = (from: string) =>
          limited.raw.post<ErrorBody>(
            '/api/auth/sign-in/email',
            { email: 'nobody@example.com', password: 'wrong-password' },
            { origin: limited.baseUrl, 'x-forwarded-for': from },
          );
        for (let index = 0; index < 3; index += 1) expect((await attempt(address)).status).toBe(401);
        const refused = await attempt(address);
        expect(refused).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await attempt(nextAddress())).status).toBe(401);
      }));

    it('believes X-Forwarded-For only from a trusted proxy', () =>
      inOneWindow(MINUTE, async () => {
        // Every attempt names another address, and all of them come from this one connection.
        const statuses: number[] = [];
        for (let index = 0; index < 4; index += 1) {
          const response = await strict.raw.post(
            '/api/auth/sign-in/email',
            { email: 'nobody@example.com', password: 'wrong-password' },
            { origin: strict.baseUrl, 'x-forwarded-for': nextAddress() },
          );
          statuses.push(response.status);
        }
        expect(statuses.at(-1)).toBe(429);
      }));

    it('limits webhook deliveries per client address', () =>
      inOneWindow(MINUTE, async () => {
        const address = nextAddress();
        const deliver = () =>
          limited.raw.post('/hooks/unknown-connection', { event: 1 }, { 'x-forwarded-for': address });
        for (let index = 0; index < 3; index += 1) expect((await deliver()).status).not.toBe(429);
        expect((await deliver()).status).toBe(429);
      }));

    it('stops asking catalog about an address that keeps sending wrong keys', () =>
      inOneWindow(MINUTE, async () => {
        const address = nextAddress();
        const guess = (token: string) =>
          limited.withToken(token).GET('/api/v1/projects', { headers: { 'x-forwarded-for': address } });
        const [colleague, unseen] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
        expect((await guess(colleague.apiKey)).response.status).toBe(200);
        for (let index = 0; index < 3; index += 1) {
          expect((await guess(`fm_guess-${index}`)).error?.error.code).toBe('unauthorized');
        }
        expect((await guess('fm_guess-again')).error?.error.code).toBe('rate_limited');
        // A key the gateway already knows to be valid is still served from that address; one it would
        // have to ask catalog about is not.
        expect((await guess(colleague.apiKey)).response.status).toBe(200);
        expect((await guess(unseen.apiKey)).error?.error.code).toBe('rate_limited');
        // Another address is not affected.
        const other = await limited.withToken(unseen.apiKey).GET('/api/v1/projects', {
          headers: { 'x-forwarded-for': nextAddress() },
        });
        expect(other.response.status).toBe(200);
      }));

    it("limits an organization's requests across all its keys", () =>
      inOneWindow(HOUR, async () => {
        const fresh = await createOrganization(stack);
        const { apiKey: secondKey } = await adminCli<{ apiKey: string }>(
          ['key', 'create', '--org', fresh.organizationId],
          stack.env,
        );
        const first = limited.withToken(fresh.apiKey);
        const second = limited.withToken(secondKey);
        for (let index = 0; index < 4; index += 1)
          expect((await first.GET('/api/v1/projects')).response.status).toBe(200);
        for (let index = 0; index < 2; index += 1) {
          const { response } = await second.GET('/api/v1/projects');
          expect(response.status).toBe(200);
          // The organization's budget is the smaller one left, so the headers tell of it.
          expect(response.headers.get('ratelimit-limit')).toBe('6');
        }
        const refused = await second.GET('/api/v1/projects');
        expect({ status: refused.response.status, body: refused.error }).toMatchObject({
          status: 429,
          body: { error: { code: 'rate_limited' } },
        });
        expect(refused.error?.error.message).toContain('organization');
      }));
  });

  describe('browsers', () => {
    it('refuses a change made with a session cookie from another origin', async () => {
      const member = await createMember(stack, org.organizationId);
      const cookie = await sessionCookie(stack, member.email, member.password);
      const create = (headers: Record<string, string>) =>
        fetch(`${stack.baseUrl}/api/v1/projects`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'text/plain', ...headers },
          body: JSON.stringify({ name: 'Forged' }),
        });
      const forged = await create({ origin: 'http://evil.test' });
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as ErrorBody).error.code).toBe('forbidden');
      expect((await create({ 'sec-fetch-site': 'same-site' })).status).toBe(403);
      expect((await create({})).status).toBe(403);
      // Its own pages may; so may a bearer token, which no other site can make a browser send.
      const own = await anonymous.POST('/api/v1/projects', {
        body: { name: 'Mine' },
        headers: { cookie, origin: stack.baseUrl },
      });
      expect(own.response.status).toBe(201);
      const bearer = await member.api.POST('/api/v1/projects', {
        body: { name: 'Mine' },
        headers: { origin: 'http://evil.test' },
      });
      expect(bearer.response.status).toBe(201);
      // Reads are not changes.
      const read = await anonymous.GET('/api/v1/projects', {
        headers: { cookie, origin: 'http://evil.test' },
      });
      expect(read.response.status).toBe(200);
      // Every route that changes something, the browser-only ones included, refuses the same way.
      const document = await fetchOpenApiDocument(stack.baseUrl);
      const changes = Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => ['post', 'put', 'patch', 'delete'].includes(method))
          .map((method) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'some-id')] as const),
      );
      changes.push(
        ['POST', '/app/keys'],
        ['DELETE', '/app/connections/some-id'],
        ['POST', '/app/agents/some-id/chat'],
        ['POST', '/app/assistant'],
        ['POST', '/mcp'],
      );
      expect(changes.length).toBeGreaterThan(20);
      const answers = await Promise.all(
        changes.map(async ([method, path]) => {
          const response = await fetch(`${stack.baseUrl}${path}`, {
            method,
            headers: { cookie, origin: 'http://evil.test', 'content-type': 'application/json' },
            body: '{}',
          });
          return [method, path, response.status];
        }),
      );
      expect(answers).toEqual(changes.map(([method, path]) => [method, path, 403]));
    });

    it('answers every page and error with security headers, and never caches the console page', async () => {
      for (const response of [
        await fetch(`${stack.baseUrl}/api/v1/projects`),
        await fetch(`${stack.baseUrl}/api/health`),
        await fetch(`${stack.baseUrl}/workflows/any`, { headers: { accept: 'text/html' } }),
      ]) {
        const policy = response.headers.get('content-security-policy') ?? '';
        expect(policy).toContain("frame-ancestors 'none'");
        expect(policy).toContain("script-src 'self'");
        expect(policy).toMatch(/style-src 'self'(;|$)/);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('referrer-policy')).toBe('same-origin');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        // Served over plain HTTP (PUBLIC_URL), so no HSTS.
        expect(response.headers.get('strict-transport-security')).toBeNull();
      }
      for (const path of ['/', '/workflows/any']) {
        const page = await fetch(`${stack.baseUrl}${path}`, { headers: { accept: 'text/html' } });
        expect(page.status).toBe(200);
        expect(page.headers.get('cache-control')).toBe('no-cache');
        const asset = (await page.text()).match(/\/assets\/[^"]+\.js/)?.[0];
        expect(asset).toBeDefined();
        const script = await fetch(`${stack.baseUrl}${asset}`);
        expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      }
      const reference = await fetch(`${stack.baseUrl}/docs/api`);
      expect(reference.headers.get('content-security-policy')).toContain("style-src 'self' 'unsafe-inline'");
    });
  });
});
