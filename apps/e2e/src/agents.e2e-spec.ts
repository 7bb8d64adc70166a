import {
  chainOf,
  createConnection,
  createMember,
  createOrganization,
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
];

describe('agents', () => {
  let org: OrganizationFixture;
  let skillId: string;
  let databaseId: string;
  let httpConnection: string;

  beforeAll(async () => {
    org = await createOrganization(stack);
    skillId = (
      await org.api.post('/api/v1/skills', { name: 'tone', description: 'Tone', instructions: 'Be kind.' })
    ).body.id;
    databaseId = (await org.api.post('/api/v1/databases', { name: 'crm' })).body.id;
    httpConnection = (await createConnection(stack, org.organizationId, 'http')).connectionId;
  });

  const issuePaths = (body: any) => (body.error?.details?.issues ?? []).map((issue: any) => issue.path);

  it('creates with the contract defaults and answers every field', async () => {
    const created = await org.api.post('/api/v1/agents', { name: 'support' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...AGENT_FIELDS].sort());
    expect(created.body).toMatchObject({
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
    });
    expect((await org.api.get(`/api/v1/agents/${created.body.id}`)).body).toEqual(created.body);
    const listed = await org.api.listAll('/api/v1/agents');
    expect(listed.map((agent) => agent.id)).toContain(created.body.id);
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
      const refused = await org.api.post('/api/v1/agents', body);
      expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
        status: 400,
        code: 'invalid_request',
      });
      expect(issuePaths(refused.body)).toContain(path);
    }
    expect((await org.api.post('/api/v1/agents', { name: 'taken' })).status).toBe(201);
    const again = await org.api.post('/api/v1/agents', { name: 'taken' });
    expect({ status: again.status, code: again.body.error?.code }).toEqual({
      status: 409,
      code: 'agent_name_taken',
    });
  });

  it('changes only the fields a PATCH sends, and refuses a rename onto a taken name', async () => {
    const created = (
      await org.api.post('/api/v1/agents', {
        name: 'patched',
        description: 'Before',
        instructions: 'Answer briefly.',
        provider: 'platform-ai',
        model: 'llama3.1',
        thinkingLevel: 'high',
      })
    ).body;
    const patched = await org.api.patch(`/api/v1/agents/${created.id}`, { description: 'After' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created, description: 'After', updatedAt: expect.any(String) });
    await org.api.post('/api/v1/agents', { name: 'other-name' });
    const renamed = await org.api.patch(`/api/v1/agents/${created.id}`, { name: 'other-name' });
    expect(renamed.body.error?.code).toBe('agent_name_taken');
    expect((await org.api.patch(`/api/v1/agents/${created.id}`, { thinkingLevel: 'loud' })).status).toBe(400);
    expect((await org.api.get(`/api/v1/agents/${created.id}`)).body.name).toBe('patched');
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
    const created = await org.api.post('/api/v1/agents', { name: 'granted', ...grants });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(grants);
    const narrowed = await org.api.patch(`/api/v1/agents/${created.body.id}`, { databaseWrites: [] });
    expect(narrowed.body).toMatchObject({ ...grants, databaseWrites: [] });
  });

  it('refuses grants that are not the organization’s or do not fit, naming each field', async () => {
    const member = await createMember(stack, org.organizationId);
    const ownSkill = (
      await member.api.post('/api/v1/skills', {
        name: 'mine-only',
        description: 'Private',
        instructions: 'Secret.',
        owner: 'me',
      })
    ).body.id;
    const other = await createOrganization(stack);
    const foreignConnection = (await createConnection(stack, other.organizationId, 'webhook')).connectionId;
    const unknown = '01900000-0000-7000-8000-000000000000';
    const refused = await org.api.post('/api/v1/agents', {
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
    });
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    expect(issuePaths(refused.body).sort()).toEqual(
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
    const mismatch = await org.api.post('/api/v1/agents', {
      name: 'bad-grants',
      apps: [{ connectionId: httpConnection, integrationId: 'slack', actions: [], approvals: [] }],
    });
    expect(issuePaths(mismatch.body)).toEqual(['apps.0.integrationId']);
    expect((await org.api.get('/api/v1/agents')).body.data.map((agent: any) => agent.name)).not.toContain(
      'bad-grants',
    );
  });

  it('deletes an agent, and keeps agents to their organization', async () => {
    const created = (await org.api.post('/api/v1/agents', { name: 'doomed' })).body;
    const other = await createOrganization(stack);
    for (const answer of [
      await other.api.get(`/api/v1/agents/${created.id}`),
      await other.api.patch(`/api/v1/agents/${created.id}`, { description: 'mine now' }),
      await other.api.delete(`/api/v1/agents/${created.id}`),
    ]) {
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 404,
        code: 'agent_not_found',
      });
    }
    expect((await other.api.listAll('/api/v1/agents')).map((agent) => agent.id)).not.toContain(created.id);
    expect(await org.api.delete(`/api/v1/agents/${created.id}`)).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    expect((await org.api.get(`/api/v1/agents/${created.id}`)).status).toBe(404);
    expect((await org.api.delete(`/api/v1/agents/${created.id}`)).status).toBe(404);
    expect((await org.api.get('/api/v1/agents/not-an-id')).body.error.code).toBe('agent_not_found');
  });

  it('stops at the plan limit: of creates racing for the last place, exactly one wins', async () => {
    const free = await createOrganization(stack, { plan: 'free' });
    const limit = (await free.api.get('/api/v1/billing')).body.limits.agents as number;
    for (let index = 0; index < limit - 1; index += 1) {
      expect((await free.api.post('/api/v1/agents', { name: `agent-${index}` })).status).toBe(201);
    }
    const racing = await Promise.all(
      ['a', 'b', 'c'].map((name) => free.api.post('/api/v1/agents', { name: `racer-${name}` })),
    );
    expect(racing.map((answer) => answer.status).sort()).toEqual([201, 402, 402]);
    expect(racing.find((answer) => answer.status === 402)!.body.error).toMatchObject({
      code: 'plan_limit_reached',
      details: { resource: 'agents', limit },
    });
    expect(await free.api.listAll('/api/v1/agents')).toHaveLength(limit);
  });

  it('publishes an Agent node only with one of the organization’s agents (publish rule 5)', async () => {
    const projectId = (await org.api.post('/api/v1/projects', { name: 'Agents' })).body.id;
    const agentId = (await org.api.post('/api/v1/agents', { name: 'publisher' })).body.id as string;
    const foreign = (await (await createOrganization(stack)).api.post('/api/v1/agents', { name: 'foreign' }))
      .body.id as string;
    const agentNode = (id: string) => ({
      id: 'ask',
      data: { type: 'agent', properties: { agentId: id, task: '' } },
    });
    const publishWith = async (id: string) => {
      const created = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Agent step',
        diagram: chainOf(nodes.trigger('t'), agentNode(id)),
      });
      return org.api.post(`/api/v1/workflows/${created.body.id}/publish`, {});
    };
    expect((await publishWith(agentId)).status).toBe(201);
    for (const id of [foreign, '01900000-0000-7000-8000-000000000000', 'x'.repeat(300)]) {
      const refused = await publishWith(id);
      expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
        status: 400,
        code: 'invalid_workflow',
      });
      expect(refused.body.error.details.issues).toEqual([
        expect.objectContaining({ nodeId: 'ask', path: 'nodes.1.data.properties.agentId' }),
      ]);
    }
    // Deleting the agent makes the workflow unpublishable.
    expect((await org.api.delete(`/api/v1/agents/${agentId}`)).status).toBe(200);
    expect((await publishWith(agentId)).body.error?.code).toBe('invalid_workflow');
  });
});
