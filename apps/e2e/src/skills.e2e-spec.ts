import {
  type ApiClient,
  createMember,
  createOrganization,
  type ErrorBody,
  expectData,
  type MemberFixture,
  type OrganizationFixture,
  runningStack,
  statusOf,
  type Schemas,
} from '#testing';

const stack = runningStack();

type NewSkill = Schemas['CreateSkillDto'];

const skill = (name: string, extra: Partial<NewSkill> = {}): NewSkill => ({
  name,
  description: `The ${name} skill`,
  instructions: `Do ${name} carefully.`,
  ...extra,
});

const createSkill = (api: ApiClient, body: NewSkill) => api.POST('/api/v1/skills', { body });
const getSkill = (api: ApiClient, id: string) => api.GET('/api/v1/skills/{id}', { params: { path: { id } } });
const updateSkill = (api: ApiClient, id: string, body: Schemas['UpdateSkillDto']) =>
  api.PATCH('/api/v1/skills/{id}', { params: { path: { id } }, body });
const deleteSkill = (api: ApiClient, id: string) =>
  api.DELETE('/api/v1/skills/{id}', { params: { path: { id } } });
const skillIds = async (api: ApiClient) => (await api.listAll('/api/v1/skills')).map((item) => item.id);

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
    const created = await createSkill(org.api, skill('summarize'));
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual({
      id: expect.any(String),
      userId: null,
      name: 'summarize',
      description: 'The summarize skill',
      instructions: 'Do summarize carefully.',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { id } = created.data!;
    for (const api of [alice.api, bob.api, org.api]) {
      expect(await statusOf(getSkill(api, id))).toBe(200);
      expect(await skillIds(api)).toContain(id);
    }
  });

  it("lists and lets edit a member's own skill for that member alone", async () => {
    const mine = expectData(await createSkill(alice.api, skill('alice-notes', { owner: 'me' })), 201);
    expect(mine.userId).toBe(alice.userId);
    const { id } = mine;

    expect(await skillIds(alice.api)).toContain(id);
    for (const api of [bob.api, org.api]) {
      expect(await skillIds(api)).not.toContain(id);
      const hidden = await getSkill(api, id);
      expect(hidden.response.status).toBe(404);
      expect(hidden.error?.error.code).toBe('skill_not_found');
      expect(await statusOf(updateSkill(api, id, { description: 'taken over' }))).toBe(404);
      expect(await statusOf(deleteSkill(api, id))).toBe(404);
    }
    const edited = await updateSkill(alice.api, id, { instructions: 'Updated.' });
    expect(edited.data).toMatchObject({ id, instructions: 'Updated.', userId: alice.userId });

    const shared = await updateSkill(alice.api, id, { owner: 'organization' });
    expect(shared.data?.userId).toBeNull();
    expect(await statusOf(getSkill(bob.api, id))).toBe(200);
  });

  it('makes a skill created with a key and owner "me" the organization\'s', async () => {
    const created = expectData(await createSkill(org.api, skill('key-owned', { owner: 'me' })), 201);
    expect(created.userId).toBeNull();
  });

  it('refuses a name already used in the organization, on create and on rename', async () => {
    await createSkill(org.api, skill('unique-name'));
    const duplicate = await createSkill(alice.api, skill('unique-name', { owner: 'me' }));
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.error?.error.code).toBe('skill_name_taken');

    const other = expectData(await createSkill(org.api, skill('other-name')), 201);
    const rename = await updateSkill(org.api, other.id, { name: 'unique-name' });
    expect(rename.response.status).toBe(409);
    expect(rename.error?.error.code).toBe('skill_name_taken');

    expect(await statusOf(createSkill(outsider.api, skill('unique-name')))).toBe(201);
  });

  // Bodies the document refuses, some of them not even of its types: sent raw.
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
    const response = await org.api.raw.post<ErrorBody>('/api/v1/skills', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details?.issues?.map((issue) => issue.path)).toContain(path);
  });

  it('keeps organizations apart', async () => {
    const { id } = expectData(await createSkill(org.api, skill('private-skill')), 201);
    expect(await statusOf(getSkill(outsider.api, id))).toBe(404);
    expect(await statusOf(deleteSkill(outsider.api, id))).toBe(404);
    expect(await skillIds(outsider.api)).not.toContain(id);
  });

  it('deletes a skill', async () => {
    const { id } = expectData(await createSkill(org.api, skill('short-lived')), 201);
    expect(expectData(await deleteSkill(org.api, id), 200)).toMatchObject({ deleted: true });
    expect(await statusOf(getSkill(org.api, id))).toBe(404);
  });
});
