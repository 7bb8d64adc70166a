import {
  adminCli,
  ApiClient,
  createMember,
  createOrganization,
  expectData,
  runningStack,
  statusOf,
  sessionCookie,
} from '#testing';

const stack = runningStack();

/** better-auth's answer to a refused browser request. */
interface AuthError {
  code: string;
  message: string;
}

describe('identity', () => {
  const anonymous = new ApiClient(stack.baseUrl);

  it('creates organizations, keys, members and plans with the admin CLI', async () => {
    const org = await createOrganization(stack, { plan: 'free' });
    expect(org.organizationId).toEqual(expect.any(String));
    expect(org.apiKey).toMatch(/^fm_/);

    const { apiKey } = await adminCli<{ apiKey: string }>(
      ['key', 'create', '--org', org.organizationId],
      stack.env,
    );
    expect(apiKey).not.toBe(org.apiKey);
    const second = anonymous.withToken(apiKey);
    const created = expectData(
      await second.POST('/api/v1/projects', { body: { name: 'via second key' } }),
      201,
    );
    const read = await org.api.GET('/api/v1/projects/{id}', { params: { path: { id: created.id } } });
    expect(read.response.status).toBe(200);

    await adminCli(['org', 'set-plan', '--org', org.organizationId, '--plan', 'enterprise'], stack.env);
    expect((await org.api.GET('/api/v1/billing')).data?.plan).toBe('enterprise');
  });

  it('lets a member use the API with a session token and records them as creator', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    const created = expectData(await member.api.POST('/api/v1/projects', { body: { name: 'Mine' } }), 201);
    expect(created.createdBy).toBe(member.userId);
  });

  it('accepts the session cookie as well as the bearer token', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    const cookie = await sessionCookie(stack, member.email, member.password);
    expect(cookie).toContain('session_token=');
    expect(await statusOf(anonymous.GET('/api/v1/projects', { headers: { cookie } }))).toBe(200);
  });

  it('refuses a stranger an account and an organization in the default mode (SIGNUP=closed)', async () => {
    const email = `stranger-${Date.now().toString(36)}@example.com`;
    const signUp = await anonymous.raw.post<AuthError>(
      '/api/auth/sign-up/email',
      { email, password: 'a-long-password-1', name: 'Stranger' },
      { origin: stack.baseUrl },
    );
    expect([signUp.status, signUp.body]).toEqual([
      400,
      { code: 'EMAIL_PASSWORD_SIGN_UP_DISABLED', message: 'Email and password sign up is not enabled' },
    ]);
    const signInAnswer = await anonymous.raw.post(
      '/api/auth/sign-in/email',
      { email, password: 'a-long-password-1' },
      { origin: stack.baseUrl },
    );
    expect(signInAnswer.status).toBe(401);

    const organization = { name: 'Mine', slug: `mine-${Date.now().toString(36)}` };
    const unsigned = await anonymous.raw.post('/api/auth/organization/create', organization, {
      origin: stack.baseUrl,
    });
    expect([unsigned.status, unsigned.body]).toEqual([401, undefined]);
    // Nor may a member an operator made: organizations are the operator's.
    const org = await createOrganization(stack);
    const owner = await createMember(stack, org.organizationId, 'owner');
    const made = await owner.api.raw.post<AuthError>('/api/auth/organization/create', organization, {
      origin: stack.baseUrl,
    });
    expect([made.status, made.body]).toEqual([
      403,
      {
        code: 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION',
        message: 'You are not allowed to create a new organization',
      },
    ]);
    const organizations = await owner.api.raw.get<Array<{ id: string }>>('/api/auth/organization/list');
    expect(organizations.body.map((row) => row.id)).toEqual([org.organizationId]);
  });

  it('answers no_active_organization for a session outside any organization', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    expect(await statusOf(member.api.GET('/api/v1/projects'))).toBe(200);
    const left = await member.api.raw.post(
      '/api/auth/organization/set-active',
      { organizationId: null },
      { origin: stack.baseUrl },
    );
    expect(left.status).toBe(200);
    // At once: switching the active organization tells the gateways to forget the cached session.
    const response = await member.api.GET('/api/v1/projects');
    expect(response.response.status).toBe(403);
    expect(response.error?.error.code).toBe('no_active_organization');
  });

  it('answers forbidden once a member is removed, without waiting for the cache to expire', async () => {
    const org = await createOrganization(stack);
    const owner = await createMember(stack, org.organizationId, 'owner');
    const member = await createMember(stack, org.organizationId);
    expect(await statusOf(member.api.GET('/api/v1/projects'))).toBe(200);

    const removed = await owner.api.raw.post(
      '/api/auth/organization/remove-member',
      { memberIdOrEmail: member.email, organizationId: org.organizationId },
      { origin: stack.baseUrl },
    );
    expect(removed.status).toBe(200);
    const response = await member.api.GET('/api/v1/projects');
    expect(response.response.status).toBe(403);
    expect(response.error?.error.code).toBe('forbidden');
  });

  it('stops honouring a session after sign-out', async () => {
    const org = await createOrganization(stack);
    const member = await createMember(stack, org.organizationId);
    expect(await statusOf(member.api.GET('/api/v1/projects'))).toBe(200);
    const out = await member.api.raw.post('/api/auth/sign-out', {}, { origin: stack.baseUrl });
    expect(out.status).toBe(200);
    const response = await member.api.GET('/api/v1/projects');
    expect(response.response.status).toBe(401);
    expect(response.error?.error.code).toBe('unauthorized');
  });
});
