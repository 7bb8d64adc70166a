import {
  adminCli,
  ApiClient,
  createConnection,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  expectData,
  nodes,
  type ServedOpenApiDocument,
  type OrganizationFixture,
  type RawResponse,
  runningStack,
  type ServiceProcess,
  startExtraGateway,
  startRun,
  waitFor,
} from '#testing';

const stack = runningStack();

describe('gateway', () => {
  let org: OrganizationFixture;
  const anonymous = new ApiClient(stack.baseUrl);

  beforeAll(async () => {
    org = await createOrganization(stack);
  });

  it('answers health without a credential', async () => {
    const health = await anonymous.GET('/api/health');
    expect({ status: health.response.status, body: health.data }).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    });
  });

  it('answers every error in the contract shape', async () => {
    // Requests made wrong on purpose: sent as they are, past the typed client.
    const cases: Array<[string, Promise<RawResponse<ErrorBody>>, number, string]> = [
      ['unknown route', org.api.raw.get('/api/v1/nothing-here'), 404, 'not_found'],
      ['wrong method', org.api.raw.request('PUT', '/api/v1/projects', {}), 405, 'method_not_allowed'],
      ['malformed JSON', org.api.raw.post('/api/v1/projects', '{"name": '), 400, 'invalid_request'],
      ['array body', org.api.raw.post('/api/v1/projects', '[1,2]'), 400, 'invalid_request'],
      [
        'wrong content type',
        org.api.raw.request('POST', '/api/v1/projects', 'name=x', {
          'content-type': 'application/x-www-form-urlencoded',
        }),
        415,
        'unsupported_media_type',
      ],
      ['no credential', anonymous.raw.get('/api/v1/projects'), 401, 'unauthorized'],
    ];
    for (const [label, pending, status, code] of cases) {
      const response = await pending;
      expect({ label, status: response.status, code: response.body?.error?.code }).toEqual({
        label,
        status,
        code,
      });
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(typeof response.body.error.message).toBe('string');
    }
  });

  it('names the methods a path takes on 405', async () => {
    const response = await org.api.raw.request('PUT', '/api/v1/projects', {});
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('treats an empty JSON body as no body', async () => {
    const response = await org.api.raw.request<ErrorBody>('POST', '/api/v1/projects', '', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details?.issues?.map((issue) => issue.path)).toContain('name');
  });

  it('echoes the request id it was given, or makes one', async () => {
    const given = await org.api.GET('/api/v1/projects', { headers: { 'x-request-id': 'trace-me-123' } });
    expect(given.response.headers.get('x-request-id')).toBe('trace-me-123');
    const made = await org.api.GET('/api/v1/projects');
    expect(made.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('shows the plan and its limits', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const billing = expectData(await free.api.GET('/api/v1/billing'), 200);
    expect(billing).toEqual({
      plan: 'free',
      label: 'Free',
      complimentary: false,
      limits: {
        projects: expect.any(Number),
        databases: expect.any(Number),
        agents: expect.any(Number),
        subscriptions: expect.any(Number),
        runs: expect.any(Number),
        storage: expect.any(Number),
        databaseStorage: expect.any(Number),
      },
      usage: {
        projects: 0,
        databases: 0,
        agents: 0,
        subscriptions: 0,
        runs: 0,
        storage: 0,
        databaseStorage: 0,
      },
      periodStart: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00.000Z$/),
      // An extension: this month's model usage (docs/usage.md).
      modelUsage: {
        month: expect.stringMatching(/^\d{4}-\d{2}$/),
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        cachedInputTokens: 0,
        totalTokens: 0,
        estimatedCost: 0,
        monthlyTokenBudget: null,
      },
    });
    const pro = await (await createOrganization(stack, { plan: 'pro' })).api.GET('/api/v1/billing');
    expect(pro.data).toMatchObject({ plan: 'pro', complimentary: true });
    expect(pro.data?.limits.projects).toBeGreaterThan(billing.limits.projects);
  });

  it('counts every limited resource in the usage, and applies a new plan at once', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const projectId = await createProject(free.api, 'Counted');
    expect((await free.api.POST('/api/v1/databases', { body: { name: 'counted' } })).response.status).toBe(
      201,
    );
    expect((await free.api.POST('/api/v1/agents', { body: { name: 'counted' } })).response.status).toBe(201);
    const hook = await createConnection(stack, free.organizationId, 'webhook');
    const workflowId = await createWorkflow(
      free.api,
      projectId,
      { nodes: [nodes.webhook('hook', hook.connectionId)], edges: [] },
      { name: 'Hooked' },
    );
    expect((await startRun(free.api, workflowId, {})).response.status).toBe(201);

    const billing = (await free.api.GET('/api/v1/billing')).data!;
    expect(billing.usage).toEqual({
      projects: 1,
      databases: 1,
      agents: 1,
      subscriptions: 1,
      runs: 1,
      // An empty database holds next to nothing, but its shard measured it.
      storage: expect.any(Number),
      databaseStorage: expect.any(Number),
    });

    // Fill the free plan's projects; the next create is refused until the plan changes.
    const create = (name: string) => free.api.POST('/api/v1/projects', { body: { name } });
    for (let index = 1; index < billing.limits.projects; index += 1) {
      expect((await create(`p${index}`)).response.status).toBe(201);
    }
    expect((await create('one too many')).response.status).toBe(402);
    await adminCli(['org', 'set-plan', '--org', free.organizationId, '--plan', 'pro'], stack.env);
    const pro = (await free.api.GET('/api/v1/billing')).data!;
    expect(pro).toMatchObject({ plan: 'pro', label: 'Pro' });
    expect(pro.limits.projects).toBeGreaterThan(billing.limits.projects);
    expect((await create('now allowed')).response.status).toBe(201);
  });

  describe('OpenAPI reference', () => {
    it('serves an OpenAPI 3.1 document generated from the DTOs', async () => {
      const response = await anonymous.raw.get<ServedOpenApiDocument>('/docs/openapi.json');
      expect(response.status).toBe(200);
      const document = response.body;
      expect(document.openapi).toBe('3.1.0');
      expect(document.info.version).toBe('1');
      expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['organizationKey', 'session']);
      expect(document.paths['/api/health'].get.security).toEqual([]);
      const create = document.paths['/api/v1/projects'].post;
      expect(create.requestBody!.content!['application/json']!.schema!.$ref).toBe(
        '#/components/schemas/CreateProjectDto',
      );
      expect(Object.keys(create.responses!)).toEqual(
        expect.arrayContaining(['201', '400', '401', '402', '429']),
      );
      expect(document.components.schemas.CreateProjectDto).toMatchObject({
        properties: { name: { minLength: 1, maxLength: 100 } },
      });
      expect(document.components.schemas.ErrorDto).toBeDefined();
      for (const path of [
        '/api/v1/projects/{id}',
        '/api/v1/skills',
        '/api/v1/skills/{id}',
        '/api/v1/billing',
      ]) {
        expect(document.paths[path]).toBeDefined();
      }
      expect(Object.keys(document.paths).some((path) => path.startsWith('/api/auth'))).toBe(false);
    });

    it('serves a human reference page', async () => {
      const response = await fetch(`${stack.baseUrl}/docs/api`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
    });
  });

  describe('with a small configured rate limit and body limit', () => {
    const gateways: ServiceProcess[] = [];
    let first: ApiClient;
    let second: ApiClient;

    const startGateway = async () => {
      const { baseUrl, process } = await startExtraGateway(stack, `gateway-limited-${gateways.length}`, {
        RATE_LIMIT_PER_HOUR: '5',
        BODY_LIMIT_BYTES: '2048',
      });
      gateways.push(process);
      return baseUrl;
    };

    beforeAll(async () => {
      const [firstUrl, secondUrl] = await Promise.all([startGateway(), startGateway()]);
      first = new ApiClient(firstUrl, org.apiKey);
      second = new ApiClient(secondUrl, org.apiKey);
    });

    afterAll(async () => {
      await Promise.all(gateways.map((gateway) => gateway.stop()));
    });

    it('counts each key across replicas and answers 429 with Retry-After past the limit', async () => {
      const fresh = await createOrganization(stack);
      const limited = first.withToken(fresh.apiKey);
      const remaining: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const { response } = await limited.GET('/api/v1/projects');
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit-limit')).toBe('5');
        remaining.push(response.headers.get('ratelimit-remaining') ?? '');
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);

      const refused = await limited.GET('/api/v1/projects');
      expect(refused.response.status).toBe(429);
      expect(refused.error?.error.code).toBe('rate_limited');
      const retryAfter = Number(refused.response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(refused.response.headers.get('ratelimit-reset')).toBe(String(retryAfter));

      // The other replica shares the count: it refuses as soon as the first replica's hits reach the
      // store (flushed every 200 ms). On a count of its own it would admit five more first.
      const elsewhere = second.withToken(fresh.apiKey);
      let admittedElsewhere = 0;
      const refusedElsewhere = await waitFor(
        async () => {
          const answer = await elsewhere.GET('/api/v1/projects');
          if (answer.response.status === 200) admittedElsewhere += 1;
          return answer.response.status === 429 ? answer : undefined;
        },
        { timeoutMs: 5_000, intervalMs: 100, what: 'the second gateway to refuse the key' },
      );
      expect(refusedElsewhere.error?.error.code).toBe('rate_limited');
      expect(admittedElsewhere).toBeLessThan(5);

      // Another key has its own allowance, and health is never limited.
      expect(
        (await first.withToken((await createOrganization(stack)).apiKey).GET('/api/v1/projects')).response
          .status,
      ).toBe(200);
      for (let index = 0; index < 7; index += 1)
        expect((await first.withToken(undefined).GET('/api/health')).response.status).toBe(200);
    });

    it('refuses a body over the limit with payload_too_large', async () => {
      const fresh = second.withToken((await createOrganization(stack)).apiKey);
      const answer = await fresh.POST('/api/v1/projects', {
        body: { name: 'big', description: 'x'.repeat(4096) },
      });
      expect(answer.response.status).toBe(413);
      expect(answer.error?.error.code).toBe('payload_too_large');
    });
  });
});
