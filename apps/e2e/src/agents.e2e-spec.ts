import {
  aWorkflow,
  chainOf,
  createAgent,
  createConnection,
  createDatabaseIn,
  createMember,
  createOrganization,
  createProject,
  createSkill,
  type ErrorBody,
  expectData,
  nodes,
  type OrganizationFixture,
  runningStack,
} from '#testing';

/** The Agents routes through the HTTP API: defaults, validation, grants, the plan, and isolation. */
const stack = runningStack();

const AGENT_FIELDS = [
  'id',
  'name',
  'description',
  'instructions',
  'provider',
  'model',
  'thinkingLevel',
  'apps',
  'skills',
  'databases',
  'databaseWrites',
  'createdAt',
  'updatedAt',
  // An extension beyond the contract (docs/usage.md).
  'monthlyTokenBudget',
];

describe('agents', () => {
  let org: OrganizationFixture;
  let skillId: string;
  let databaseId: string;
  let httpConnection: string;

  beforeAll(async () => {
    org = await createOrganization(stack);
    skillId = await createSkill(org.api, { name: 'tone', description: 'Tone', instructions: 'Be kind.' });
    databaseId = await createDatabaseIn(org.api, 'crm');
    httpConnection = (await createConnection(stack, org.organizationId, 'http')).connectionId;
  });

  const issuePaths = (body: ErrorBody | undefined) =>
    (body?.error?.details?.issues ?? []).map((issue) => issue.path);
  const onAgent = (id: string) => ({ params: { path: { id } } });

  it('creates with the contract defaults and answers every field', async () => {
    const created = await org.api.POST('/api/v1/agents', { body: { name: 'support' } });
    expect(created.response.status).toBe(201);
    expect(Object.keys(created.data!).sort()).toEqual([...AGENT_FIELDS].sort());
    expect(created.data).toMatchObject({
      name: 'support',
      description: '',
      instructions: '',
      provider: 'gateway',
      model: '',
      thinkingLevel: 'medium',
      apps: [],
      skills: [],
      databases: [],
      databaseWrites: [],
      monthlyTokenBudget: null,
    });
    expect((await org.api.GET('/api/v1/agents/{id}', onAgent(created.data!.id))).data).toEqual(created.data);
    const listed = await org.api.listAll('/api/v1/agents');
    expect(listed.map((agent) => agent.id)).toContain(created.data!.id);
  });

  it('refuses bad names, enums and lengths naming the field, and a taken name with 409', async () => {
    for (const [body, path] of [
      [{ name: 'Not A Slug' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{}, 'name'],
      [{ name: 'enums', provider: 'openai' }, 'provider'],
      [{ name: 'enums', thinkingLevel: 'max' }, 'thinkingLevel'],
      [{ name: 'long', description: 'x'.repeat(1025) }, 'description'],
      [{ name: 'grants', skills: 'not-a-list' }, 'skills'],
    ] as const) {
      // Bodies the document refuses: sent as they are, past the typed client.
      const refused = await org.api.raw.post<ErrorBody>('/api/v1/agents', body);
      expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
        status: 400,
        code: 'invalid_request',
      });
      expect(issuePaths(refused.body)).toContain(path);
    }
    expect((await org.api.POST('/api/v1/agents', { body: { name: 'taken' } })).response.status).toBe(201);
    const again = await org.api.POST('/api/v1/agents', { body: { name: 'taken' } });
    expect({ status: again.response.status, code: again.error?.error?.code }).toEqual({
      status: 409,
      code: 'agent_name_taken',
    });
  });

  it('changes only the fields a PATCH sends, and refuses a rename onto a taken name', async () => {
    const created = await createAgent(org.api, {
      name: 'patched',
      description: 'Before',
      instructions: 'Answer briefly.',
      provider: 'platform-ai',
      model: 'llama3.1',
      thinkingLevel: 'high',
    });
    const patched = await org.api.PATCH('/api/v1/agents/{id}', {
      ...onAgent(created.id),
      body: { description: 'After' },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toEqual({ ...created, description: 'After', updatedAt: expect.any(String) });
    await org.api.POST('/api/v1/agents', { body: { name: 'other-name' } });
    const renamed = await org.api.PATCH('/api/v1/agents/{id}', {
      ...onAgent(created.id),
      body: { name: 'other-name' },
    });
    expect(renamed.error?.error?.code).toBe('agent_name_taken');
    // A level the document refuses: sent as it is, past the typed client.
    const loud = await org.api.raw.patch(`/api/v1/agents/${created.id}`, { thinkingLevel: 'loud' });
    expect(loud.status).toBe(400);
    expect((await org.api.GET('/api/v1/agents/{id}', onAgent(created.id))).data?.name).toBe('patched');
  });

  it('keeps grants of the organization’s connections, skills and databases', async () => {
    const grants = {
      apps: [
        {
          connectionId: httpConnection,
          integrationId: 'http',
          actions: ['http__request'],
          approvals: ['http__request'],
        },
      ],
      skills: [skillId],
      databases: [databaseId],
      databaseWrites: [databaseId],
    };
    const created = await org.api.POST('/api/v1/agents', { body: { name: 'granted', ...grants } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject(grants);
    const narrowed = await org.api.PATCH('/api/v1/agents/{id}', {
      ...onAgent(created.data!.id),
      body: { databaseWrites: [] },
    });
    expect(narrowed.data).toMatchObject({ ...grants, databaseWrites: [] });
  });

  it('refuses grants that are not the organization’s or do not fit, naming each field', async () => {
    const member = await createMember(stack, org.organizationId);
    const ownSkill = await createSkill(member.api, {
      name: 'mine-only',
      description: 'Private',
      instructions: 'Secret.',
      owner: 'me',
    });
    const other = await createOrganization(stack);
    const foreignConnection = (await createConnection(stack, other.organizationId, 'webhook')).connectionId;
    const unknown = '01900000-0000-7000-8000-000000000000';
    const refused = await org.api.POST('/api/v1/agents', {
      body: {
        name: 'bad-grants',
        apps: [
          { connectionId: foreignConnection, integrationId: 'webhook', actions: [], approvals: [] },
          {
            connectionId: httpConnection,
            integrationId: 'http',
            actions: ['http__request', 'slack__post_message', 'no-separator'],
            approvals: ['webhook__send'],
          },
        ],
        skills: [skillId, unknown, ownSkill],
        databases: [unknown],
        databaseWrites: [databaseId],
      },
    });
    expect({ status: refused.response.status, code: refused.error?.error?.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    expect(issuePaths(refused.error).sort()).toEqual(
      [
        'apps.0.connectionId',
        'apps.1.actions.1',
        'apps.1.actions.2',
        'apps.1.approvals.0',
        'skills.1',
        'skills.2',
        'databases.0',
        'databaseWrites.0',
      ].sort(),
    );
    const mismatch = await org.api.POST('/api/v1/agents', {
      body: {
        name: 'bad-grants',
        apps: [{ connectionId: httpConnection, integrationId: 'slack', actions: [], approvals: [] }],
      },
    });
    expect(issuePaths(mismatch.error)).toEqual(['apps.0.integrationId']);
    const listed = await org.api.GET('/api/v1/agents');
    expect(listed.data?.data.map((agent) => agent.name)).not.toContain('bad-grants');
  });

  it('deletes an agent, and keeps agents to their organization', async () => {
    const created = await createAgent(org.api, { name: 'doomed' });
    const other = await createOrganization(stack);
    for (const answer of [
      await other.api.GET('/api/v1/agents/{id}', onAgent(created.id)),
      await other.api.PATCH('/api/v1/agents/{id}', {
        ...onAgent(created.id),
        body: { description: 'mine now' },
      }),
      await other.api.DELETE('/api/v1/agents/{id}', onAgent(created.id)),
    ]) {
      expect({ status: answer.response.status, code: answer.error?.error?.code }).toEqual({
        status: 404,
        code: 'agent_not_found',
      });
    }
    expect((await other.api.listAll('/api/v1/agents')).map((agent) => agent.id)).not.toContain(created.id);
    const deleted = await org.api.DELETE('/api/v1/agents/{id}', onAgent(created.id));
    expect({ status: deleted.response.status, body: deleted.data }).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    expect((await org.api.GET('/api/v1/agents/{id}', onAgent(created.id))).response.status).toBe(404);
    expect((await org.api.DELETE('/api/v1/agents/{id}', onAgent(created.id))).response.status).toBe(404);
    expect((await org.api.GET('/api/v1/agents/{id}', onAgent('not-an-id'))).error?.error.code).toBe(
      'agent_not_found',
    );
  });

  it('stops at the plan limit: of creates racing for the last place, exactly one wins', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const limit = expectData(await free.api.GET('/api/v1/billing'), 200).limits.agents!;
    const create = (name: string) => free.api.POST('/api/v1/agents', { body: { name } });
    for (let index = 0; index < limit - 1; index += 1) {
      expect((await create(`agent-${index}`)).response.status).toBe(201);
    }
    const racing = await Promise.all(['a', 'b', 'c'].map((name) => create(`racer-${name}`)));
    expect(racing.map((answer) => answer.response.status).sort()).toEqual([201, 402, 402]);
    expect(racing.find((answer) => answer.response.status === 402)!.error?.error).toMatchObject({
      code: 'plan_limit_reached',
      details: { resource: 'agents', limit },
    });
    expect(await free.api.listAll('/api/v1/agents')).toHaveLength(limit);
  });

  it('publishes an Agent node only with one of the organization’s agents (publish rule 5)', async () => {
    const projectId = await createProject(org.api, 'Agents');
    const agentId = (await createAgent(org.api, { name: 'publisher' })).id;
    const foreign = (await createAgent((await createOrganization(stack)).api, { name: 'foreign' })).id;
    const publishWith = async (id: string) => {
      const created = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: aWorkflow(chainOf(nodes.trigger('t'), nodes.agent('ask', id, '')), { name: 'Agent step' }),
      });
      return org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: expectData(created, 201).id } },
        body: {},
      });
    };
    expect((await publishWith(agentId)).response.status).toBe(201);
    for (const id of [foreign, '01900000-0000-7000-8000-000000000000', 'x'.repeat(300)]) {
      const refused = await publishWith(id);
      expect({ status: refused.response.status, code: refused.error?.error?.code }).toEqual({
        status: 400,
        code: 'invalid_workflow',
      });
      expect(refused.error?.error.details?.issues).toEqual([
        expect.objectContaining({ nodeId: 'ask', path: 'nodes.1.data.properties.agentId' }),
      ]);
    }
    // Deleting the agent makes the workflow unpublishable.
    expect((await org.api.DELETE('/api/v1/agents/{id}', onAgent(agentId))).response.status).toBe(200);
    expect((await publishWith(agentId)).error?.error?.code).toBe('invalid_workflow');
  });
});
