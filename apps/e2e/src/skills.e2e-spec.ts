import {
  createMember,
  createOrganization,
  type MemberFixture,
  type OrganizationFixture,
  runningStack,
} from '#testing';

const stack = runningStack();

const skill = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} skill`,
  instructions: `Do ${name} carefully.`,
  ...extra,
});

describe('skills', () => {
  let org: OrganizationFixture;
  let alice: MemberFixture;
  let bob: MemberFixture;
  let outsider: OrganizationFixture;

  beforeAll(async () => {
    [org, outsider] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    [alice, bob] = await Promise.all([
      createMember(stack, org.organizationId),
      createMember(stack, org.organizationId),
    ]);
  });

  it('creates an organization skill with a key, visible to every member', async () => {
    const created = await org.api.post('/api/v1/skills', skill('summarize'));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      userId: null,
      name: 'summarize',
      description: 'The summarize skill',
      instructions: 'Do summarize carefully.',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    for (const api of [alice.api, bob.api, org.api]) {
      expect((await api.get(`/api/v1/skills/${created.body.id}`)).status).toBe(200);
      expect((await api.listAll('/api/v1/skills')).map((item) => item.id)).toContain(created.body.id);
    }
  });

  it("lists and lets edit a member's own skill for that member alone", async () => {
    const mine = await alice.api.post('/api/v1/skills', skill('alice-notes', { owner: 'me' }));
    expect(mine.status).toBe(201);
    expect(mine.body.userId).toBe(alice.userId);
    const id = mine.body.id as string;

    expect((await alice.api.listAll('/api/v1/skills')).map((item) => item.id)).toContain(id);
    for (const api of [bob.api, org.api]) {
      expect((await api.listAll('/api/v1/skills')).map((item) => item.id)).not.toContain(id);
      const hidden = await api.get(`/api/v1/skills/${id}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('skill_not_found');
      expect((await api.patch(`/api/v1/skills/${id}`, { description: 'taken over' })).status).toBe(404);
      expect((await api.delete(`/api/v1/skills/${id}`)).status).toBe(404);
    }
    const edited = await alice.api.patch(`/api/v1/skills/${id}`, { instructions: 'Updated.' });
    expect(edited.body).toMatchObject({ id, instructions: 'Updated.', userId: alice.userId });

    const shared = await alice.api.patch(`/api/v1/skills/${id}`, { owner: 'organization' });
    expect(shared.body.userId).toBeNull();
    expect((await bob.api.get(`/api/v1/skills/${id}`)).status).toBe(200);
  });

  it('makes a skill created with a key and owner "me" the organization\'s', async () => {
    const created = await org.api.post('/api/v1/skills', skill('key-owned', { owner: 'me' }));
    expect(created.status).toBe(201);
    expect(created.body.userId).toBeNull();
  });

  it('refuses a name already used in the organization, on create and on rename', async () => {
    await org.api.post('/api/v1/skills', skill('unique-name'));
    const duplicate = await alice.api.post('/api/v1/skills', skill('unique-name', { owner: 'me' }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('skill_name_taken');

    const other = await org.api.post('/api/v1/skills', skill('other-name'));
    const rename = await org.api.patch(`/api/v1/skills/${other.body.id}`, { name: 'unique-name' });
    expect(rename.status).toBe(409);
    expect(rename.body.error.code).toBe('skill_name_taken');

    expect((await outsider.api.post('/api/v1/skills', skill('unique-name'))).status).toBe(201);
  });

  it.each([
    ['uppercase name', { ...skill('x'), name: 'Has Caps' }, 'name'],
    ['double hyphen', { ...skill('x'), name: 'double--hyphen' }, 'name'],
    ['leading hyphen', { ...skill('x'), name: '-leading' }, 'name'],
    ['65-character name', { ...skill('x'), name: 'a'.repeat(65) }, 'name'],
    ['empty description', { ...skill('x'), description: '' }, 'description'],
    ['1025-character description', { ...skill('x'), description: 'd'.repeat(1025) }, 'description'],
    ['empty instructions', { ...skill('x'), instructions: '' }, 'instructions'],
    ['unknown owner', { ...skill('x'), owner: 'team' }, 'owner'],
    ['missing fields', { name: 'no-rest' }, 'description'],
  ])('refuses a %s with an issue on it', async (_label, body, path) => {
    const response = await org.api.post('/api/v1/skills', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
  });

  it('keeps organizations apart', async () => {
    const created = await org.api.post('/api/v1/skills', skill('private-skill'));
    expect((await outsider.api.get(`/api/v1/skills/${created.body.id}`)).status).toBe(404);
    expect((await outsider.api.delete(`/api/v1/skills/${created.body.id}`)).status).toBe(404);
    expect((await outsider.api.listAll('/api/v1/skills')).map((item) => item.id)).not.toContain(
      created.body.id,
    );
  });

  it('deletes a skill', async () => {
    const created = await org.api.post('/api/v1/skills', skill('short-lived'));
    expect(await org.api.delete(`/api/v1/skills/${created.body.id}`)).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    expect((await org.api.get(`/api/v1/skills/${created.body.id}`)).status).toBe(404);
  });
});
