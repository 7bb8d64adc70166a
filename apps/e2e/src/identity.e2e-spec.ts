import { adminCli, ApiClient, createMember, createOrganization, runningStack, signIn } from '#testing';

const stack = runningStack();

describe('identity', () => {
  const anonymous = new ApiClient(stack.baseUrl);

  it('creates organizations, keys, members and plans with the admin CLI', async () => {
    const org = await createOrganization(stack, { plan: 'free' });
    expect(org.organizationId).toEqual(expect.any(String));
    expect(org.apiKey).toMatch(/^fm_/);

    const { apiKey } = await adminCli(['key', 'create', '--org', org.organizationId], stack.env);
    expect(apiKey).not.toBe(org.apiKey);
    const second = anonymous.withToken(apiKey);
    const created = await second.post('/api/v1/projects', { name: 'via second key' });
    expect(created.status).toBe(201);
    expect((await org.api.get(`/api/v1/projects/${created.body.id}`)).status).toBe(200);

    await adminCli(['org', 'set-plan', '--org', org.organizationId, '--plan', 'enterprise'], stack.env);
    expect((await org.api.get('/api/v1/billing')).body.plan).toBe('enterprise');
  });

  it('lets a member use the API with a session token and records them as creator', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    const created = await member.api.post('/api/v1/projects', { name: 'Mine' });
    expect(created.status).toBe(201);
    expect(created.body.createdBy).toBe(member.userId);
  });

  it('accepts the session cookie as well as the bearer token', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    const response = await fetch(`${stack.baseUrl}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.baseUrl },
      body: JSON.stringify({ email: member.email, password: member.password }),
    });
    const cookie = response.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    expect(cookie).toContain('session_token=');
    expect((await anonymous.get('/api/v1/projects', { cookie })).status).toBe(200);
  });

  it('answers no_active_organization for a session outside any organization', async () => {
    const email = `loner-${Date.now()}@example.com`;
    const signUp = await anonymous.post(
      '/api/auth/sign-up/email',
      { email, password: 'a-long-password-1', name: 'Loner' },
      { origin: stack.baseUrl },
    );
    expect(signUp.status).toBe(200);
    const token = await signIn(stack, email, 'a-long-password-1');
    const response = await anonymous.withToken(token).get('/api/v1/projects');
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('no_active_organization');
  });

  it('answers forbidden once a member is removed, without waiting for the cache to expire', async () => {
    const org = await createOrganization(stack);
    const owner = await createMember(stack, org.organizationId, 'owner');
    const member = await createMember(stack, org.organizationId);
    expect((await member.api.get('/api/v1/projects')).status).toBe(200);

    const removed = await owner.api.post(
      '/api/auth/organization/remove-member',
      { memberIdOrEmail: member.email, organizationId: org.organizationId },
      { origin: stack.baseUrl },
    );
    expect(removed.status).toBe(200);
    const response = await member.api.get('/api/v1/projects');
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('forbidden');
  });

  it('stops honouring a session after sign-out', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    expect((await member.api.get('/api/v1/projects')).status).toBe(200);
    const out = await member.api.post('/api/auth/sign-out', {}, { origin: stack.baseUrl });
    expect(out.status).toBe(200);
    const response = await member.api.get('/api/v1/projects');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('unauthorized');
  });
});
