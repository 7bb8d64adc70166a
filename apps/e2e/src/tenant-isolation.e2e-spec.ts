import { randomUUID } from 'node:crypto';

import type { ApiKeyDto, ConnectionDto, CreatedApiKeyDto } from '#contracts';
import {
  type Answer,
  type ApiPaths,
  chatBody,
  createAgent,
  createConnection,
  createDatabaseIn,
  createMember,
  createNotificationEndpoint,
  createOrganization,
  createProject,
  createSkill,
  createWorkflow,
  deliver,
  edge,
  type ErrorBody,
  expectData,
  fetchOpenApiDocument,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  queryDatabase,
  RawClient,
  type RawResponse,
  rowsOf,
  runningStack,
  signedDelivery,
  startRun,
  waitFor,
} from '#testing';

const stack = runningStack();

/** How better-auth's routes say no. */
type AuthError = { code?: string };

/**
 * Two organizations, and every route of the API and of the browser: each resource of one is invisible
 * and untouchable to the other. The owner makes one of everything; the intruder, a key and an owner of
 * another organization, then reads, changes, deletes, runs, decides and replays each of them through
 * every route that names one, with bodies that would be accepted for its own resources, and must be
 * told it does not exist. Afterwards every resource reads as it did. A route the OpenAPI document
 * lists that this sweep does not cover fails the test, so a new route cannot skip it.
 */
describe('tenant isolation', () => {
  let owner: OrganizationFixture;
  let ownerMember: MemberFixture;
  let intruder: OrganizationFixture;
  let intruderMember: MemberFixture;
  const ids: Record<string, string> = {};

  /** The events stored for the owner's workflow. */
  const eventsOf = () => owner.api.listAll('/api/v1/workflows/{id}/events', { path: { id: ids.workflow! } });

  beforeAll(async () => {
    [owner, intruder] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    [ownerMember, intruderMember] = await Promise.all([
      createMember(stack, owner.organizationId, 'owner'),
      createMember(stack, intruder.organizationId, 'owner'),
    ]);
    const api = owner.api;

    const hook = await createConnection(stack, owner.organizationId, 'webhook');
    ids.connection = hook.connectionId;
    ids.project = await createProject(api, 'Private');
    const diagram = {
      nodes: [nodes.trigger('t'), nodes.webhook('hook', hook.connectionId), nodes.alwaysTrue('c')],
      edges: [edge('e1', 't', 'c'), edge('e2', 'hook', 'c')],
    };
    ids.workflow = await createWorkflow(api, ids.project, diagram, { name: 'Private flow' });
    const started = await startRun(
      api,
      ids.workflow,
      { triggerNodeId: 't', input: 'secret input' },
      { Prefer: 'wait=30' },
    );
    ids.run = expectData(started, 201).id;
    const bulk = await api.POST('/api/v1/runs/bulk', {
      body: { action: 'cancel', filter: { workflowId: ids.workflow, status: ['complete'] } },
    });
    ids.operation = expectData(bulk, 202).id;
    expect(
      (await deliver(stack.baseUrl, hook.connectionId, signedDelivery(hook.secret!, { secret: 1 }))).status,
    ).toBe(202);
    ids.event = await waitFor(async () => (await eventsOf())[0]?.id, {
      what: 'the event to be stored',
    });
    // Told of the owner's runs; its URL names the owner's workflow, which no answer may show another.
    ids.notificationEndpoint = (
      await createNotificationEndpoint(api, hook.connectionId, `https://alerts.example.com/${ids.workflow}`)
    ).id;
    ids.database = await createDatabaseIn(api, 'private-db');
    await rowsOf(api, ids.database, [
      { sql: 'CREATE TABLE notes (body TEXT)' },
      { sql: "INSERT INTO notes VALUES ('mine')" },
    ]);
    ids.skill = await createSkill(api, {
      name: 'private-skill',
      description: 'Mine.',
      instructions: 'Only mine.',
    });
    ids.agent = (await createAgent(api, { name: 'private-agent', description: 'Mine.' })).id;
    const key = await ownerMember.api.raw.post<CreatedApiKeyDto>('/app/keys', { name: 'private key' });
    if (key.status !== 201) throw new Error(`${key.status}: ${JSON.stringify(key.body)}`);
    ids.key = key.body.id;
    // The organization's token budget (docs/usage.md), which no other organization's call may change.
    expectData(
      await ownerMember.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 12_345 } }),
      200,
    );
  }, 120_000);

  /** The owner's view of each resource, to show afterwards that nothing the intruder did changed it. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const api = owner.api;
    const read = async (path: string, request: Promise<Answer<unknown>>) => {
      const answer = await request;
      expect({ path, status: answer.response.status }).toEqual({ path, status: 200 });
      return answer.data;
    };
    const readRaw = async (path: string) => {
      const answer = await ownerMember.api.raw.get(path);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      return answer.body;
    };
    const id = { params: { path: { id: ids.workflow! } } };
    const rows = await queryDatabase(api, ids.database!, [{ sql: 'SELECT body FROM notes' }]);
    return {
      project: await read(
        `/api/v1/projects/${ids.project}`,
        api.GET('/api/v1/projects/{id}', { params: { path: { id: ids.project! } } }),
      ),
      workflow: await read(`/api/v1/workflows/${ids.workflow}`, api.GET('/api/v1/workflows/{id}', id)),
      versions: await read(
        `/api/v1/workflows/${ids.workflow}/versions`,
        api.GET('/api/v1/workflows/{id}/versions', id),
      ),
      runs: await read(`/api/v1/workflows/${ids.workflow}/runs`, api.GET('/api/v1/workflows/{id}/runs', id)),
      run: await read(
        `/api/v1/runs/${ids.run}`,
        api.GET('/api/v1/runs/{id}', { params: { path: { id: ids.run! } } }),
      ),
      events: await read(
        `/api/v1/workflows/${ids.workflow}/events`,
        api.GET('/api/v1/workflows/{id}/events', id),
      ),
      database: await read(
        `/api/v1/databases/${ids.database}`,
        api.GET('/api/v1/databases/{id}', { params: { path: { id: ids.database! } } }),
      ),
      rows: rows.data ?? rows.error,
      skill: await read(
        `/api/v1/skills/${ids.skill}`,
        api.GET('/api/v1/skills/{id}', { params: { path: { id: ids.skill! } } }),
      ),
      agent: await read(
        `/api/v1/agents/${ids.agent}`,
        api.GET('/api/v1/agents/{id}', { params: { path: { id: ids.agent! } } }),
      ),
      notificationEndpoint: await read(
        `/api/v1/notification-endpoints/${ids.notificationEndpoint}`,
        api.GET('/api/v1/notification-endpoints/{id}', {
          params: { path: { id: ids.notificationEndpoint! } },
        }),
      ),
      notificationEndpoints: await read(
        '/api/v1/notification-endpoints',
        api.GET('/api/v1/notification-endpoints', { params: { query: { limit: 100 } } }),
      ),
      keys: await readRaw('/app/keys'),
      connections: await readRaw('/app/connections'),
    };
  }

  type Caller = 'key' | 'member';
  /** The browser's routes that name a resource, which the OpenAPI document leaves out. */
  type BrowserRoute =
    | '/app/agents/{id}/threads'
    | '/app/agents/{id}/threads/{threadId}'
    | '/app/agents/{id}/chat'
    | '/app/connections/{id}'
    | '/app/connections/{id}/sending-secret'
    | '/app/connections/{id}/tools'
    | '/app/connections/{id}/refresh-tools'
    | '/app/keys/{id}';
  interface Attempt {
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    /** The route as the OpenAPI document writes it; `{name}` is filled from the owner's ids. */
    route: keyof ApiPaths | BrowserRoute;
    body?: unknown;
    as: Caller;
    /** The error codes an answer may carry: each says "not found", never which part was missing. */
    codes: string[];
  }

  const workflowEdit = { name: 'Taken over' };
  const attempts: Attempt[] = [
    { method: 'GET', route: '/api/v1/projects/{id}', as: 'key', codes: ['project_not_found'] },
    {
      method: 'PATCH',
      route: '/api/v1/projects/{id}',
      body: { name: 'Taken' },
      as: 'key',
      codes: ['project_not_found'],
    },
    { method: 'DELETE', route: '/api/v1/projects/{id}', as: 'key', codes: ['project_not_found'] },
    {
      method: 'GET',
      route: '/api/v1/projects/{projectId}/workflows',
      as: 'key',
      codes: ['project_not_found'],
    },
    {
      method: 'POST',
      route: '/api/v1/projects/{projectId}/workflows',
      body: { name: 'Planted', diagram: { nodes: [nodes.trigger('t')], edges: [] } },
      as: 'key',
      codes: ['project_not_found'],
    },
    { method: 'GET', route: '/api/v1/workflows/{id}', as: 'key', codes: ['workflow_not_found'] },
    {
      method: 'PATCH',
      route: '/api/v1/workflows/{id}',
      body: workflowEdit,
      as: 'key',
      codes: ['workflow_not_found'],
    },
    { method: 'DELETE', route: '/api/v1/workflows/{id}', as: 'key', codes: ['workflow_not_found'] },
    {
      method: 'POST',
      route: '/api/v1/workflows/{id}/publish',
      body: {},
      as: 'key',
      codes: ['workflow_not_found'],
    },
    { method: 'POST', route: '/api/v1/workflows/{id}/pause', as: 'key', codes: ['workflow_not_found'] },
    { method: 'POST', route: '/api/v1/workflows/{id}/resume', as: 'key', codes: ['workflow_not_found'] },
    { method: 'GET', route: '/api/v1/workflows/{id}/versions', as: 'key', codes: ['workflow_not_found'] },
    {
      method: 'GET',
      route: '/api/v1/workflows/{id}/versions/{number}',
      as: 'key',
      codes: ['workflow_not_found'],
    },
    {
      method: 'POST',
      route: '/api/v1/workflows/{id}/runs',
      body: { triggerNodeId: 't' },
      as: 'key',
      codes: ['workflow_not_found'],
    },
    { method: 'GET', route: '/api/v1/workflows/{id}/runs', as: 'key', codes: ['workflow_not_found'] },
    { method: 'GET', route: '/api/v1/runs/{id}', as: 'key', codes: ['run_not_found'] },
    { method: 'GET', route: '/api/v1/runs/{id}/stream', as: 'key', codes: ['run_not_found'] },
    { method: 'GET', route: '/api/v1/runs/{id}/children', as: 'key', codes: ['run_not_found'] },
    {
      method: 'POST',
      route: '/api/v1/runs/{id}/cancel',
      body: { reason: 'Not yours to stop.', rollback: true },
      as: 'key',
      codes: ['run_not_found'],
    },
    { method: 'POST', route: '/api/v1/runs/{id}/pause', as: 'key', codes: ['run_not_found'] },
    { method: 'POST', route: '/api/v1/runs/{id}/resume', as: 'key', codes: ['run_not_found'] },
    {
      method: 'POST',
      route: '/api/v1/runs/{id}/rerun',
      body: { input: 'mine now' },
      as: 'key',
      codes: ['run_not_found'],
    },
    {
      method: 'POST',
      route: '/api/v1/runs/{id}/approvals/{approvalId}',
      body: { decision: 'approve' },
      as: 'key',
      codes: ['run_not_found'],
    },
    { method: 'GET', route: '/api/v1/workflows/{id}/events', as: 'key', codes: ['workflow_not_found'] },
    {
      method: 'POST',
      route: '/api/v1/workflows/{id}/events/replay',
      body: { triggerNodeId: 'hook' },
      as: 'key',
      codes: ['workflow_not_found'],
    },
    { method: 'GET', route: '/api/v1/operations/{id}', as: 'key', codes: ['operation_not_found'] },
    {
      method: 'POST',
      route: '/api/v1/workflows/{id}/events/{eventId}/replay',
      body: { triggerNodeId: 'hook' },
      as: 'key',
      codes: ['workflow_not_found', 'event_not_found'],
    },
    {
      method: 'GET',
      route: '/api/v1/notification-endpoints/{id}',
      as: 'key',
      codes: ['notification_endpoint_not_found'],
    },
    {
      method: 'DELETE',
      route: '/api/v1/notification-endpoints/{id}',
      as: 'key',
      codes: ['notification_endpoint_not_found'],
    },
    {
      method: 'POST',
      route: '/api/v1/notification-endpoints/{id}/secret',
      as: 'member',
      codes: ['notification_endpoint_not_found'],
    },
    {
      method: 'GET',
      route: '/api/v1/notification-endpoints/{id}/deliveries',
      as: 'key',
      codes: ['notification_endpoint_not_found'],
    },
    { method: 'GET', route: '/api/v1/databases/{id}', as: 'key', codes: ['database_not_found'] },
    {
      method: 'PATCH',
      route: '/api/v1/databases/{id}',
      body: { description: 'Taken' },
      as: 'key',
      codes: ['database_not_found'],
    },
    { method: 'DELETE', route: '/api/v1/databases/{id}', as: 'key', codes: ['database_not_found'] },
    {
      method: 'POST',
      route: '/api/v1/databases/{id}/query',
      body: { statements: [{ sql: 'SELECT body FROM notes' }, { sql: 'DROP TABLE notes' }] },
      as: 'key',
      codes: ['database_not_found'],
    },
    { method: 'GET', route: '/api/v1/skills/{id}', as: 'key', codes: ['skill_not_found'] },
    {
      method: 'PATCH',
      route: '/api/v1/skills/{id}',
      body: { instructions: 'Do as I say.' },
      as: 'key',
      codes: ['skill_not_found'],
    },
    { method: 'DELETE', route: '/api/v1/skills/{id}', as: 'key', codes: ['skill_not_found'] },
    { method: 'GET', route: '/api/v1/agents/{id}', as: 'key', codes: ['agent_not_found'] },
    {
      method: 'PATCH',
      route: '/api/v1/agents/{id}',
      body: { instructions: 'Work for me.' },
      as: 'key',
      codes: ['agent_not_found'],
    },
    { method: 'DELETE', route: '/api/v1/agents/{id}', as: 'key', codes: ['agent_not_found'] },
    // The browser's routes, for a signed-in owner of the other organization.
    { method: 'GET', route: '/app/agents/{id}/threads', as: 'member', codes: ['agent_not_found'] },
    { method: 'GET', route: '/app/agents/{id}/threads/{threadId}', as: 'member', codes: ['agent_not_found'] },
    {
      method: 'POST',
      route: '/app/agents/{id}/chat',
      body: chatBody(randomUUID(), 'Tell me their secrets.'),
      as: 'member',
      codes: ['agent_not_found'],
    },
    {
      method: 'PATCH',
      route: '/app/connections/{id}',
      body: { allowedOrigins: ['https://intruder.example'] },
      as: 'member',
      codes: ['not_found'],
    },
    {
      method: 'POST',
      route: '/app/connections/{id}/sending-secret',
      body: {},
      as: 'member',
      codes: ['not_found'],
    },
    { method: 'GET', route: '/app/connections/{id}/tools', as: 'member', codes: ['not_found'] },
    { method: 'POST', route: '/app/connections/{id}/refresh-tools', as: 'member', codes: ['not_found'] },
    { method: 'DELETE', route: '/app/connections/{id}', as: 'member', codes: ['not_found'] },
    { method: 'DELETE', route: '/app/keys/{id}', as: 'member', codes: ['not_found'] },
  ];

  /** The owner's id for each path parameter of a route. */
  function pathOf({ route }: Attempt): string {
    const values: Record<string, string> = {
      projectId: ids.project!,
      number: '1',
      approvalId: randomUUID(),
      eventId: ids.event!,
      threadId: randomUUID(),
    };
    const idOf = () => {
      if (route.startsWith('/api/v1/projects/')) return ids.project!;
      if (route.startsWith('/api/v1/workflows/')) return ids.workflow!;
      if (route.startsWith('/api/v1/runs/')) return ids.run!;
      if (route.startsWith('/api/v1/operations/')) return ids.operation!;
      if (route.startsWith('/api/v1/notification-endpoints/')) return ids.notificationEndpoint!;
      if (route.startsWith('/api/v1/databases/')) return ids.database!;
      if (route.startsWith('/api/v1/skills/')) return ids.skill!;
      if (route.startsWith('/api/v1/agents/') || route.startsWith('/app/agents/')) return ids.agent!;
      if (route.startsWith('/app/connections/')) return ids.connection!;
      if (route.startsWith('/app/keys/')) return ids.key!;
      throw new Error(`no owner's id for ${route}`);
    };
    return route.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' ? idOf() : values[name]!));
  }

  it('covers every route of the OpenAPI document that names a resource', async () => {
    const document = await fetchOpenApiDocument(stack.baseUrl);
    const named = Object.entries(document.paths).flatMap(([route, operations]) =>
      route.includes('{')
        ? Object.keys(operations)
            .filter((method) => method !== 'parameters')
            .map((method) => `${method.toUpperCase()} ${route}`)
        : [],
    );
    const covered = new Set(attempts.map((attempt) => `${attempt.method} ${attempt.route}`));
    expect(named.filter((route) => !covered.has(route))).toEqual([]);
  });

  it("answers not found for each of the other organization's resources, on every route, and changes nothing", async () => {
    const before = await snapshot();
    const answers = [];
    for (const attempt of attempts) {
      const client = attempt.as === 'key' ? intruder.api : intruderMember.api;
      const path = pathOf(attempt);
      // As it is, not through the typed methods: one request for each route, whichever it is.
      const answer = await client.raw.request<ErrorBody | undefined>(attempt.method, path, attempt.body);
      const asked = path + JSON.stringify(attempt.body ?? '');
      answers.push({
        route: `${attempt.method} ${attempt.route}`,
        status: answer.status,
        code: answer.body?.error?.code,
        // An answer may repeat the id it was asked about, nothing else of the owner's.
        leaks: Object.values(ids).filter(
          (id) => !asked.includes(id) && JSON.stringify(answer.body ?? '').includes(id),
        ),
      });
    }
    expect(answers).toEqual(
      attempts.map((attempt) => ({
        route: `${attempt.method} ${attempt.route}`,
        status: 404,
        code: expect.stringMatching(new RegExp(`^(${attempt.codes.join('|')})$`)),
        leaks: [],
      })),
    );
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  it("lists none of the other organization's resources, and counts none of them", async () => {
    const secrets = Object.values(ids);
    const seen = async (request: Promise<Answer<unknown>>) => {
      const answer = await request;
      return { status: answer.response.status, body: answer.data ?? answer.error };
    };
    const page = { params: { query: { limit: 100 } } };
    const reads: Array<Promise<Pick<RawResponse, 'status' | 'body'>>> = [
      seen(intruder.api.GET('/api/v1/projects', page)),
      seen(intruder.api.GET('/api/v1/databases', page)),
      seen(intruder.api.GET('/api/v1/skills', page)),
      seen(intruder.api.GET('/api/v1/agents', page)),
      seen(intruder.api.GET('/api/v1/notification-endpoints', page)),
      seen(intruder.api.GET('/api/v1/runs', page)),
      seen(
        intruder.api.GET('/api/v1/runs', { params: { query: { workflowId: ids.workflow!, limit: 100 } } }),
      ),
      seen(intruder.api.GET('/api/v1/dashboard')),
      seen(intruder.api.GET('/api/v1/billing')),
      seen(intruder.api.GET('/api/v1/usage')),
      // The audit log: the owner's changes are recorded, never in the intruder's log.
      seen(intruder.api.GET('/api/v1/audit', page)),
      seen(intruderMember.api.GET('/api/v1/audit', page)),
      seen(intruderMember.api.GET('/api/v1/skills', page)),
      intruderMember.api.raw.get('/app/connections'),
      intruderMember.api.raw.get('/app/keys'),
    ];
    for (const answer of await Promise.all(reads)) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      expect(secrets.filter((id) => text.includes(id))).toEqual([]);
      expect(text).not.toMatch(/Private|private-|secret input/);
    }
    // A bulk action names runs by filter, and a filter only ever matches the caller's own runs.
    const bulk = await intruder.api.POST('/api/v1/runs/bulk', {
      body: { action: 'cancel', filter: { workflowId: ids.workflow! } },
    });
    expect(expectData(bulk, 202)).toMatchObject({ matched: 0, status: 'complete' });
    const billing = expectData(await intruder.api.GET('/api/v1/billing'), 200);
    expect(JSON.stringify(billing.usage)).not.toMatch(/"(projects|databases|agents)":\s*[1-9]/);
    // Budgets are the organization's own: each owner sets theirs, and reads only theirs.
    expect(billing.modelUsage.monthlyTokenBudget).toBeNull();
    expectData(
      await intruderMember.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 7 } }),
      200,
    );
    expect(expectData(await intruder.api.GET('/api/v1/usage'), 200).monthlyTokenBudget).toBe(7);
    expect(expectData(await owner.api.GET('/api/v1/usage'), 200).monthlyTokenBudget).toBe(12_345);
  });

  it("cannot send events into the other organization's webhook connection without its secret", async () => {
    const forged = signedDelivery(`whsec_${Buffer.from(randomUUID()).toString('base64')}`, { forged: true });
    const answer = await deliver(stack.baseUrl, ids.connection!, forged);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    const events = await eventsOf();
    expect(events.map((event) => event.id)).toEqual([ids.event]);
  });

  it('lets a member of the organization connect apps, but change, rotate and delete none of its connections', async () => {
    const member = await createMember(stack, owner.organizationId, 'member');
    const api = await createConnection(stack, owner.organizationId, 'http', {
      config: { headers: { authorization: 'Bearer owner' }, allowedOrigins: ['https://api.example.com'] },
    });
    const connections = () => ownerMember.api.raw.listAll<ConnectionDto>('/app/connections');
    const before = await connections();
    const answers = await Promise.all([
      member.api.raw.patch<ErrorBody>(`/app/connections/${api.connectionId}`, {
        allowedOrigins: ['https://member.example'],
      }),
      member.api.raw.post<ErrorBody>(`/app/connections/${ids.connection}/sending-secret`, {}),
      member.api.raw.delete<ErrorBody>(`/app/connections/${ids.connection}`),
      member.api.raw.delete<ErrorBody>(`/app/connections/${api.connectionId}`),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body?.error?.code])).toEqual(
      answers.map(() => [403, 'forbidden']),
    );
    expect(await connections()).toEqual(before);
    const made = await member.api.raw.post('/app/connections', {
      integrationId: 'webhook',
      name: 'Members may',
    });
    expect(made.status).toBe(201);
  });

  it('gives a stranger no account, and nobody an organization, over HTTP (SIGNUP=closed)', async () => {
    const stranger = new RawClient(stack.baseUrl);
    const origin = { origin: stack.baseUrl };
    const email = `stranger-${randomUUID()}@example.com`;
    const probes: Array<Promise<RawResponse<AuthError | undefined>>> = [
      stranger.post('/api/auth/sign-up/email', { email, password: 'a-long-password-1', name: 'S' }, origin),
      stranger.post(
        '/api/auth/invitation/sign-up',
        { invitationId: randomUUID(), token: 'guess', name: 'S', password: 'a-long-password-1' },
        origin,
      ),
      stranger.post('/api/auth/organization/create', { name: 'Mine', slug: `mine-${randomUUID()}` }, origin),
      intruderMember.api.raw.post(
        '/api/auth/organization/create',
        { name: 'Mine', slug: `mine-${randomUUID()}` },
        origin,
      ),
      intruderMember.api.raw.post(
        '/api/auth/organization/delete',
        { organizationId: intruder.organizationId },
        origin,
      ),
    ];
    expect((await Promise.all(probes)).map((answer) => [answer.status, answer.body?.code])).toEqual([
      [400, 'EMAIL_PASSWORD_SIGN_UP_DISABLED'],
      [403, 'SIGNUP_CLOSED'],
      [401, undefined],
      [403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION'],
      [404, 'ORGANIZATION_DELETION_DISABLED'],
    ]);
    const organizations = await intruderMember.api.raw.get<Array<{ id: string }>>(
      '/api/auth/organization/list',
    );
    expect(organizations.body.map((row) => row.id)).toEqual([intruder.organizationId]);
  });

  it("cannot read, join or change the other organization's members, invitations or keys through /api/auth", async () => {
    const origin = { origin: stack.baseUrl };
    // An account the owner may invite (SIGNUP=closed): a member of the intruder's organization.
    const invitee = await createMember(stack, intruder.organizationId, 'member');
    const invited = await ownerMember.api.raw.post<{ id: string }>(
      '/api/auth/organization/invite-member',
      { email: invitee.email, role: 'member' },
      origin,
    );
    expect(invited.status).toBe(200);
    const organizationId = owner.organizationId;
    const owners = ownerMember.api.raw;
    const membership = async () => ({
      members: (
        await owners.get<{ members: Array<{ id: string; userId: string }> }>(
          '/api/auth/organization/list-members',
        )
      ).body,
      invitations: (await owners.get('/api/auth/organization/list-invitations')).body,
      organization: (await owners.get('/api/auth/organization/get-full-organization')).body,
      keys: (await owners.get<ApiKeyDto[]>('/app/keys')).body,
    });
    const before = await membership();
    const ownerMemberId = before.members.members.find((row) => row.userId === ownerMember.userId)!.id;
    const notMember = 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION';
    const keyElsewhere = 'USER_NOT_MEMBER_OF_ORGANIZATION';
    const attempts: Array<[string, string, unknown, number, string | undefined]> = [
      [
        'GET',
        `/api/auth/organization/list-members?organizationId=${organizationId}`,
        undefined,
        403,
        notMember,
      ],
      [
        'GET',
        `/api/auth/organization/list-invitations?organizationId=${organizationId}`,
        undefined,
        403,
        undefined,
      ],
      [
        'GET',
        `/api/auth/organization/get-full-organization?organizationId=${organizationId}`,
        undefined,
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      ],
      [
        'POST',
        '/api/auth/organization/invite-member',
        { email: intruderMember.email, role: 'owner', organizationId },
        400,
        'MEMBER_NOT_FOUND',
      ],
      [
        'POST',
        '/api/auth/organization/set-active',
        { organizationId },
        403,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      ],
      [
        'POST',
        '/api/auth/organization/update-member-role',
        { memberId: ownerMemberId, role: 'member', organizationId },
        400,
        'MEMBER_NOT_FOUND',
      ],
      [
        'POST',
        '/api/auth/organization/remove-member',
        { memberIdOrEmail: ownerMember.email, organizationId },
        400,
        'MEMBER_NOT_FOUND',
      ],
      [
        'POST',
        '/api/auth/organization/update',
        { organizationId, data: { name: 'Taken' } },
        400,
        'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION',
      ],
      [
        'POST',
        '/api/auth/organization/cancel-invitation',
        { invitationId: invited.body.id },
        400,
        'MEMBER_NOT_FOUND',
      ],
      [
        'POST',
        '/api/auth/organization/accept-invitation',
        { invitationId: invited.body.id },
        403,
        'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION',
      ],
      [
        'GET',
        `/api/auth/invitation/link?invitationId=${invited.body.id}`,
        undefined,
        400,
        'INVITATION_NOT_FOUND',
      ],
      ['GET', `/api/auth/api-key/get?id=${ids.key}`, undefined, 403, keyElsewhere],
      ['GET', `/api/auth/api-key/list?organizationId=${organizationId}`, undefined, 403, keyElsewhere],
      ['POST', '/api/auth/api-key/update', { keyId: ids.key, enabled: false }, 403, keyElsewhere],
      ['POST', '/api/auth/api-key/delete', { keyId: ids.key }, 403, keyElsewhere],
      ['POST', '/api/auth/api-key/create', { organizationId, name: 'planted' }, 403, keyElsewhere],
    ];
    const answers = [];
    for (const [method, path, body] of attempts) {
      const answer = await intruderMember.api.raw.request<AuthError | undefined>(method, path, body, origin);
      answers.push([method, path, answer.status, answer.body?.code]);
    }
    expect(answers).toEqual(attempts.map(([method, path, , status, code]) => [method, path, status, code]));
    expect(await membership()).toEqual(before);
  });
});
