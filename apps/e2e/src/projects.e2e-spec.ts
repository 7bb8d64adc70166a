import {
  ApiClient,
  createOrganization,
  type ErrorBody,
  expectData,
  type OrganizationFixture,
  runningStack,
} from '#testing';

const stack = runningStack();

const onProject = (id: string) => ({ params: { path: { id } } });

describe('projects', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
  });

  it('creates, reads, updates and deletes a project', async () => {
    const created = await org.api.POST('/api/v1/projects', {
      body: { name: 'Sales ops', description: 'Leads' },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual({
      id: expect.any(String),
      name: 'Sales ops',
      description: 'Leads',
      createdBy: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.data!.id;

    expect((await org.api.GET('/api/v1/projects/{id}', onProject(id))).data).toEqual(created.data);

    const patched = await org.api.PATCH('/api/v1/projects/{id}', {
      ...onProject(id),
      body: { description: null },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toMatchObject({ id, name: 'Sales ops', description: null });

    const renamed = await org.api.PATCH('/api/v1/projects/{id}', {
      ...onProject(id),
      body: { name: 'Renamed' },
    });
    expect(renamed.data).toMatchObject({ name: 'Renamed', description: null });

    const deleted = await org.api.DELETE('/api/v1/projects/{id}', onProject(id));
    expect({ status: deleted.response.status, body: deleted.data }).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    const gone = await org.api.GET('/api/v1/projects/{id}', onProject(id));
    expect(gone.response.status).toBe(404);
    expect(gone.error?.error.code).toBe('project_not_found');
    expect((await org.api.DELETE('/api/v1/projects/{id}', onProject(id))).response.status).toBe(404);
  });

  it('answers project_not_found for an unknown or malformed id', async () => {
    for (const id of ['01a1fda9-ac47-73ca-aacb-8e38ce781792', 'not-an-id']) {
      const answer = await org.api.GET('/api/v1/projects/{id}', onProject(id));
      expect(answer.response.status).toBe(404);
      expect(answer.error?.error).toEqual({ code: 'project_not_found', message: expect.any(String) });
    }
  });

  it('validates names and descriptions with one issue per problem', async () => {
    const answer = await org.api.POST('/api/v1/projects', {
      body: { name: '', description: 'x'.repeat(501) },
    });
    expect(answer.response.status).toBe(400);
    expect(answer.error?.error.code).toBe('invalid_request');
    const paths = answer.error?.error.details?.issues?.map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'description']));

    // Bodies the document refuses: sent as they are, past the typed client.
    const missing = await org.api.raw.post<ErrorBody>('/api/v1/projects', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details?.issues?.map((issue) => issue.path)).toContain('name');

    const { id } = expectData(await org.api.POST('/api/v1/projects', { body: { name: 'ok' } }), 201);
    const nullName = await org.api.raw.patch<ErrorBody>(`/api/v1/projects/${id}`, { name: null });
    expect(nullName.status).toBe(400);
  });

  it('keeps organizations apart', async () => {
    const mine = await org.api.POST('/api/v1/projects', { body: { name: 'Private' } });
    const id = mine.data!.id;
    expect((await other.api.GET('/api/v1/projects/{id}', onProject(id))).response.status).toBe(404);
    const stolen = await other.api.PATCH('/api/v1/projects/{id}', {
      ...onProject(id),
      body: { name: 'stolen' },
    });
    expect(stolen.response.status).toBe(404);
    expect((await other.api.DELETE('/api/v1/projects/{id}', onProject(id))).response.status).toBe(404);
    const theirs = await other.api.listAll('/api/v1/projects');
    expect(theirs.map((project) => project.id)).not.toContain(id);
    expect((await org.api.GET('/api/v1/projects/{id}', onProject(id))).data?.name).toBe('Private');
  });

  it('pages newest first without skipping or repeating when items are added between pages', async () => {
    const fresh = await createOrganization(stack);
    const names = Array.from({ length: 7 }, (_, index) => `p${index}`);
    for (const name of names) {
      expect((await fresh.api.POST('/api/v1/projects', { body: { name } })).response.status).toBe(201);
    }
    const page = (cursor?: string) =>
      fresh.api.GET('/api/v1/projects', { params: { query: { limit: 3, cursor } } });

    const first = await page();
    expect(first.data?.data.map((project) => project.name)).toEqual(['p6', 'p5', 'p4']);
    await fresh.api.POST('/api/v1/projects', { body: { name: 'late' } });
    const second = await page(first.data?.nextCursor ?? undefined);
    expect(second.data?.data.map((project) => project.name)).toEqual(['p3', 'p2', 'p1']);
    const third = await page(second.data?.nextCursor ?? undefined);
    expect(third.data?.data.map((project) => project.name)).toEqual(['p0']);
    expect(third.data?.nextCursor).toBeNull();

    const all = await fresh.api.listAll('/api/v1/projects', { limit: 2 });
    expect(all.map((project) => project.name)).toEqual(['late', ...[...names].reverse()]);
  });

  it('refuses a bad cursor or limit with invalid_request', async () => {
    // Queries the document refuses: sent as they are, past the typed client.
    for (const query of ['cursor=garbage', 'limit=0', 'limit=101', 'limit=abc']) {
      const response = await org.api.raw.get<ErrorBody>(`/api/v1/projects?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(response.body.error.details?.issues?.length).toBeGreaterThan(0);
    }
    expect((await org.api.GET('/api/v1/projects')).response.status).toBe(200);
  });

  it('stops at the plan limit with plan_limit_reached', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const limit = expectData(await free.api.GET('/api/v1/billing'), 200).limits.projects;
    for (let index = 0; index < limit; index += 1) {
      expect((await free.api.POST('/api/v1/projects', { body: { name: `p${index}` } })).response.status).toBe(
        201,
      );
    }
    const refused = await free.api.POST('/api/v1/projects', { body: { name: 'one too many' } });
    expect(refused.response.status).toBe(402);
    expect(refused.error?.error).toMatchObject({
      code: 'plan_limit_reached',
      details: { resource: 'projects', limit },
    });
  });

  it('admits exactly the limit when creates race, and frees a place on delete', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const billing = () => free.api.GET('/api/v1/billing').then((answer) => expectData(answer, 200));
    const limit = (await billing()).limits.projects;
    const answers = await Promise.all(
      Array.from({ length: limit + 4 }, (_, index) =>
        free.api.POST('/api/v1/projects', { body: { name: `race ${index}` } }),
      ),
    );
    const statuses = answers.map((answer) => answer.response.status).sort();
    expect(statuses).toEqual([...Array(limit).fill(201), ...Array(4).fill(402)]);
    expect((await billing()).usage.projects).toBe(limit);

    const created = answers.find((answer) => answer.response.status === 201)!;
    expect(
      (await free.api.DELETE('/api/v1/projects/{id}', onProject(created.data!.id))).response.status,
    ).toBe(200);
    expect(
      (await free.api.POST('/api/v1/projects', { body: { name: 'after delete' } })).response.status,
    ).toBe(201);
    expect((await free.api.POST('/api/v1/projects', { body: { name: 'over again' } })).response.status).toBe(
      402,
    );
  });

  it('refuses a request without a valid credential', async () => {
    const anonymous = new ApiClient(stack.baseUrl);
    const missing = await anonymous.GET('/api/v1/projects');
    expect(missing.response.status).toBe(401);
    expect(missing.error?.error.code).toBe('unauthorized');
    const wrong = await anonymous
      .withToken('fm_notarealkeynotarealkeynotarealkeynotarealkeynotarealkey1234')
      .GET('/api/v1/projects');
    expect(wrong.response.status).toBe(401);
    expect(wrong.error?.error.code).toBe('unauthorized');
  });
});
