import { ApiClient, createOrganization, type OrganizationFixture, runningStack } from '#testing';

const stack = runningStack();

describe('projects', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
  });

  it('creates, reads, updates and deletes a project', async () => {
    const created = await org.api.post('/api/v1/projects', { name: 'Sales ops', description: 'Leads' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Sales ops',
      description: 'Leads',
      createdBy: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id as string;

    expect((await org.api.get(`/api/v1/projects/${id}`)).body).toEqual(created.body);

    const patched = await org.api.patch(`/api/v1/projects/${id}`, { description: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, name: 'Sales ops', description: null });

    const renamed = await org.api.patch(`/api/v1/projects/${id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', description: null });

    expect(await org.api.delete(`/api/v1/projects/${id}`)).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    const gone = await org.api.get(`/api/v1/projects/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('project_not_found');
    expect((await org.api.delete(`/api/v1/projects/${id}`)).status).toBe(404);
  });

  it('answers project_not_found for an unknown or malformed id', async () => {
    for (const id of ['01a1fda9-ac47-73ca-aacb-8e38ce781792', 'not-an-id']) {
      const response = await org.api.get(`/api/v1/projects/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.error).toEqual({ code: 'project_not_found', message: expect.any(String) });
    }
  });

  it('validates names and descriptions with one issue per problem', async () => {
    const response = await org.api.post('/api/v1/projects', { name: '', description: 'x'.repeat(501) });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    const paths = (response.body.error.details.issues as Array<{ path: string }>).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'description']));

    const missing = await org.api.post('/api/v1/projects', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain('name');

    const nullName = await org.api.patch(
      `/api/v1/projects/${(await org.api.post('/api/v1/projects', { name: 'ok' })).body.id}`,
      {
        name: null,
      },
    );
    expect(nullName.status).toBe(400);
  });

  it('keeps organizations apart', async () => {
    const mine = await org.api.post('/api/v1/projects', { name: 'Private' });
    const id = mine.body.id as string;
    expect((await other.api.get(`/api/v1/projects/${id}`)).status).toBe(404);
    expect((await other.api.patch(`/api/v1/projects/${id}`, { name: 'stolen' })).status).toBe(404);
    expect((await other.api.delete(`/api/v1/projects/${id}`)).status).toBe(404);
    const theirs = await other.api.listAll('/api/v1/projects');
    expect(theirs.map((project) => project.id)).not.toContain(id);
    expect((await org.api.get(`/api/v1/projects/${id}`)).body.name).toBe('Private');
  });

  it('pages newest first without skipping or repeating when items are added between pages', async () => {
    const fresh = await createOrganization(stack);
    const names = Array.from({ length: 7 }, (_, index) => `p${index}`);
    for (const name of names) expect((await fresh.api.post('/api/v1/projects', { name })).status).toBe(201);

    const first = await fresh.api.get('/api/v1/projects?limit=3');
    expect(first.body.data.map((project: { name: string }) => project.name)).toEqual(['p6', 'p5', 'p4']);
    await fresh.api.post('/api/v1/projects', { name: 'late' });
    const second = await fresh.api.get(`/api/v1/projects?limit=3&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((project: { name: string }) => project.name)).toEqual(['p3', 'p2', 'p1']);
    const third = await fresh.api.get(`/api/v1/projects?limit=3&cursor=${second.body.nextCursor}`);
    expect(third.body.data.map((project: { name: string }) => project.name)).toEqual(['p0']);
    expect(third.body.nextCursor).toBeNull();

    const all = await fresh.api.listAll('/api/v1/projects', 2);
    expect(all.map((project) => project.name)).toEqual(['late', ...[...names].reverse()]);
  });

  it('refuses a bad cursor or limit with invalid_request', async () => {
    for (const query of ['cursor=garbage', 'limit=0', 'limit=101', 'limit=abc']) {
      const response = await org.api.get(`/api/v1/projects?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(response.body.error.details.issues.length).toBeGreaterThan(0);
    }
    expect((await org.api.get('/api/v1/projects')).status).toBe(200);
  });

  it('stops at the plan limit with plan_limit_reached', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const billing = await free.api.get('/api/v1/billing');
    const limit = billing.body.limits.projects as number;
    for (let index = 0; index < limit; index += 1) {
      expect((await free.api.post('/api/v1/projects', { name: `p${index}` })).status).toBe(201);
    }
    const refused = await free.api.post('/api/v1/projects', { name: 'one too many' });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'plan_limit_reached',
      details: { resource: 'projects', limit },
    });
  });

  it('admits exactly the limit when creates race, and frees a place on delete', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const limit = (await free.api.get('/api/v1/billing')).body.limits.projects as number;
    const responses = await Promise.all(
      Array.from({ length: limit + 4 }, (_, index) =>
        free.api.post('/api/v1/projects', { name: `race ${index}` }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(limit).fill(201), ...Array(4).fill(402)]);
    expect((await free.api.get('/api/v1/billing')).body.usage.projects).toBe(limit);

    const created = responses.find((response) => response.status === 201)!;
    expect((await free.api.delete(`/api/v1/projects/${created.body.id}`)).status).toBe(200);
    expect((await free.api.post('/api/v1/projects', { name: 'after delete' })).status).toBe(201);
    expect((await free.api.post('/api/v1/projects', { name: 'over again' })).status).toBe(402);
  });

  it('refuses a request without a valid credential', async () => {
    const anonymous = new ApiClient(stack.baseUrl);
    const missing = await anonymous.get('/api/v1/projects');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    const wrong = await anonymous
      .withToken('fm_notarealkeynotarealkeynotarealkeynotarealkeynotarealkey1234')
      .get('/api/v1/projects');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
  });
});
