import {
  chatBody,
  createAgent,
  createConnection,
  createDatabaseIn,
  createDraft,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  edge,
  expectData,
  finished,
  getWorkflow,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  queryDatabase,
  ScriptedModel,
  sendAssistant,
  startRun,
  type TestDiagram,
  TestStack,
  textOf,
  type UiChunk,
} from '#testing';

/** The outputs of the answer's `propose_workflow` calls, in order. */
const verdictsOf = (chunks: UiChunk[]) => {
  const proposals = new Set(
    chunks
      .filter((chunk) => chunk.type === 'tool-input-available' && chunk.toolName === 'propose_workflow')
      .map((chunk) => chunk.toolCallId as string),
  );
  return chunks
    .filter((chunk) => chunk.type === 'tool-output-available' && proposals.has(chunk.toolCallId as string))
    .map(
      (chunk) =>
        chunk.output as {
          valid: boolean;
          issues: Array<{ path: string; message: string }>;
          diagram: TestDiagram;
        },
    );
};

const outputOf = (chunks: UiChunk[], toolName: string) => {
  const call = chunks.find((chunk) => chunk.type === 'tool-input-available' && chunk.toolName === toolName);
  return chunks.find(
    (chunk) => chunk.type === 'tool-output-available' && chunk.toolCallId === call?.toolCallId,
  )?.output as unknown;
};

const metadataOf = (chunks: UiChunk[]) =>
  chunks.findLast((chunk) => chunk.type === 'finish')?.messageMetadata as
    | { conversationId: string; usage?: { inputTokens: number; outputTokens: number; totalTokens: number } }
    | undefined;

const body = (id: string, text: string, extra: Record<string, string> = {}) => ({
  ...chatBody(id, text),
  ...extra,
});

/**
 * The workflow assistant against a scripted OpenAI-compatible model over real HTTP and the real
 * services: its proposals are checked by the publish rules (another organization's agent or
 * connection included), an invalid one goes back to the model with its issues, a valid one applies
 * and publishes, a draft is edited, a failed run is explained, and only signed-in members may ask.
 */
describe('the workflow assistant', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let org: OrganizationFixture;
  let member: MemberFixture;
  let projectId: string;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    stack = await TestStack.start({ ...model.gatewayEnv, ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    org = await createOrganization(stack.description);
    member = await createMember(stack.description, org.organizationId);
    projectId = await createProject(org.api);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  afterEach(() => model.clear());

  const delayAfterTrigger: TestDiagram = {
    nodes: [nodes.trigger('start'), nodes.delay('wait', 1)],
    edges: [edge('e1', 'start', 'wait')],
  };

  it('gives an invalid proposal back to the model with its issues; the valid one applies and publishes', async () => {
    const invalid = { nodes: [nodes.delay('wait', 1)], edges: [] };
    model.queue(
      { toolCalls: [{ name: 'list_node_types', arguments: {} }] },
      {
        toolCalls: [
          { name: 'propose_workflow', arguments: { name: 'Nap', diagram: invalid, explanation: 'Waits.' } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'propose_workflow',
            arguments: { name: 'Nap', diagram: delayAfterTrigger, explanation: 'Waits.' },
          },
        ],
      },
      { text: 'Here is a workflow that waits a second.' },
    );
    const before = model.calls.length;

    const answer = await sendAssistant(
      member.api,
      body('new-chat-1', 'A workflow that waits a second.', { projectId }),
    );

    expect(answer.status).toBe(200);
    expect(answer.wellFormed && answer.done).toBe(true);
    const verdicts = verdictsOf(answer.chunks);
    expect(verdicts.map((verdict) => verdict.valid)).toEqual([false, true]);
    expect(verdicts[0]!.issues.map((issue) => issue.message).join(' ')).toMatch(/no trigger node/);
    // The model read the issues: the call after the invalid proposal has them as the tool's result.
    const third = JSON.stringify(model.calls[before + 2]!.messages);
    expect(third).toMatch(/no trigger node/);
    expect(textOf(answer.chunks)).toBe('Here is a workflow that waits a second.');
    // The node types' list is read on demand; the first call carries no schema.
    expect(JSON.stringify(model.calls[before]!.messages)).not.toMatch(/backoffSeconds/);
    expect(JSON.stringify(outputOf(answer.chunks, 'list_node_types'))).toMatch(/"type":"loop"/);

    // Tokens: four calls at the scripted 10 in, 5 out.
    const metadata = metadataOf(answer.chunks);
    expect(metadata?.usage).toEqual({ inputTokens: 40, outputTokens: 20, totalTokens: 60 });
    expect(answer.headers.get('x-conversation-id')).toBe(metadata?.conversationId);

    // Applied as the console does: create the workflow, set the draft, then publish it.
    const created = await createDraft(member.api, projectId, { name: 'Nap' });
    const patched = await member.api.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: created.id } },
      body: { diagram: verdicts[1]!.diagram as never },
    });
    expectData(patched, 200);
    expect((await publishWorkflow(member.api, created.id)).number).toBe(1);

    // The turn counts in the organization's model usage, as the assistant's.
    const usage = expectData(await member.api.GET('/api/v1/usage', {}), 200);
    expect(usage.rows).toContainEqual(
      expect.objectContaining({ agentId: null, agentName: 'Assistant', calls: 4, inputTokens: 40 }),
    );
  });

  it("edits an existing draft and remembers the conversation's last proposal", async () => {
    const draft = await createDraft(member.api, projectId, {
      name: 'Edited',
      diagram: delayAfterTrigger as never,
    });
    const longer: TestDiagram = {
      nodes: [...delayAfterTrigger.nodes, nodes.delay('again', 2)],
      edges: [...delayAfterTrigger.edges, edge('e2', 'wait', 'again')],
    };
    model.queue(
      { toolCalls: [{ name: 'get_workflow', arguments: {} }] },
      {
        toolCalls: [
          {
            name: 'propose_workflow',
            arguments: { name: 'Edited', diagram: longer, explanation: 'One more wait.' },
          },
        ],
      },
      { text: 'Added a second wait.' },
      { text: 'It waits three seconds in all.' },
    );
    const before = model.calls.length;

    const first = await sendAssistant(
      member.api,
      body('edit-1', 'Wait once more after the first wait.', { workflowId: draft.id }),
    );

    expect(first.status).toBe(200);
    expect(JSON.stringify(outputOf(first.chunks, 'get_workflow'))).toContain('"wait"');
    expect(verdictsOf(first.chunks).map((verdict) => verdict.valid)).toEqual([true]);
    expect(JSON.stringify(model.calls[before]!.body.messages)).toContain(draft.id);
    // A proposal is not a save: the draft is as it was until the member applies it.
    expect((await getWorkflow(member.api, draft.id)).diagram.nodes).toHaveLength(2);

    const conversationId = metadataOf(first.chunks)!.conversationId;
    const second = await sendAssistant(
      member.api,
      body(conversationId, 'How long does it wait?', { workflowId: draft.id }),
    );

    expect(second.status).toBe(200);
    expect(metadataOf(second.chunks)?.conversationId).toBe(conversationId);
    const history = JSON.stringify(model.calls.at(-1)!.messages);
    expect(history).toContain('Wait once more after the first wait.');
    expect(history).toContain('\\"again\\"');
    // Tool results of earlier turns are not sent again.
    expect(model.calls.at(-1)!.messages.filter((message) => message.role === 'tool')).toEqual([]);

    // Another member cannot continue it: the id starts a new conversation of their own.
    const other = await createMember(stack.description, org.organizationId);
    const theirs = await sendAssistant(other.api, body(conversationId, 'What did we say?'));
    expect(metadataOf(theirs.chunks)?.conversationId).not.toBe(conversationId);
    expect(JSON.stringify(model.calls.at(-1)!.messages)).not.toContain('Wait once more');
  });

  it("refuses a proposal naming another organization's agent or connection", async () => {
    const other = await createOrganization(stack.description, { name: 'Other org' });
    const theirAgent = await createAgent(other.api, { name: 'theirs', instructions: 'Hi.' });
    const theirConnection = await createConnection(stack.description, other.organizationId, 'http');
    const diagram: TestDiagram = {
      nodes: [
        nodes.trigger('start'),
        nodes.agent('ask', theirAgent.id),
        nodes.action(
          'call',
          'http__request',
          { url: 'http://127.0.0.1:9/' },
          { connectionId: theirConnection.connectionId },
        ),
      ],
      edges: [edge('e1', 'start', 'ask'), edge('e2', 'ask', 'call')],
    };
    model.queue(
      {
        toolCalls: [{ name: 'propose_workflow', arguments: { name: 'Borrowed', diagram, explanation: 'x' } }],
      },
      { text: 'That agent is not yours.' },
    );

    const answer = await sendAssistant(member.api, body('borrow-1', 'Use their agent.'));

    const [verdict] = verdictsOf(answer.chunks);
    expect(verdict?.valid).toBe(false);
    const issues = verdict!.issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n');
    expect(issues).toMatch(/nodes\.1\.data\.properties\.agentId/);
    expect(issues).toMatch(/nodes\.2\.data\.properties\.connectionId/);
  });

  it('explains a failed run from its steps', async () => {
    const databaseId = await createDatabaseIn(org.api, 'orders');
    expectData(
      await queryDatabase(org.api, databaseId, [{ sql: 'CREATE TABLE orders (id INTEGER, total DOUBLE)' }]),
      200,
    );
    const workflowId = await createWorkflow(org.api, projectId, {
      nodes: [
        nodes.trigger('start'),
        nodes.database('insert', databaseId, 'INSERT INTO missing_table VALUES (1)'),
      ],
      edges: [edge('e1', 'start', 'insert')],
    });
    const run = await finished(org.api, expectData(await startRun(org.api, workflowId), 201).id);
    expect(run.status).toBe('errored');
    model.queue(
      {
        toolCalls: [
          { name: 'get_run', arguments: { id: run.id } },
          { name: 'get_database', arguments: { id: databaseId } },
        ],
      },
      { text: 'The step insert failed: the table missing_table does not exist; insert into orders instead.' },
    );
    const before = model.calls.length;

    const answer = await sendAssistant(
      member.api,
      body('explain-1', 'Explain why this run failed and suggest a fix.', { workflowId, runId: run.id }),
    );

    expect(answer.status).toBe(200);
    expect(model.calls[before]!.messages[0]).toMatchObject({ role: 'system' });
    expect(String(model.calls[before]!.messages[0]!.content)).toContain(run.id);
    expect(JSON.stringify(outputOf(answer.chunks, 'get_run'))).toMatch(/missing_table/);
    expect(JSON.stringify(outputOf(answer.chunks, 'get_database'))).toMatch(/orders.*total DOUBLE/);
    expect(textOf(answer.chunks)).toMatch(/insert failed/);
  });

  it("takes no turn once the organization's monthly token budget is used up", async () => {
    const budgeted = await createOrganization(stack.description, { name: 'Budgeted org' });
    const owner = await createMember(stack.description, budgeted.organizationId, 'owner');
    model.queue({ text: 'Hello.' });
    expect((await sendAssistant(owner.api, body('budget-1', 'Hi'))).status).toBe(200);
    expectData(await owner.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 15 } }), 200);
    const calls = model.calls.length;

    const refused = await sendAssistant(owner.api, body('budget-2', 'Hi again'));

    expect(refused.status).toBe(402);
    expect(refused.error).toMatchObject({
      code: 'plan_limit_reached',
      details: { resource: 'monthlyTokenBudget', limit: 15 },
    });
    expect(model.calls.length).toBe(calls);
    expectData(await owner.api.PUT('/api/v1/usage/budget', { body: { monthlyTokenBudget: 1000 } }), 200);
    model.queue({ text: 'Hello again.' });
    expect((await sendAssistant(owner.api, body('budget-3', 'Hi again'))).status).toBe(200);
  });

  it('answers only signed-in members, about their own workflows and runs', async () => {
    const byKey = await sendAssistant(org.api, body('key-1', 'Hello'));
    expect(byKey.status).toBe(403);
    expect(byKey.error?.code).toBe('forbidden');

    const other = await createOrganization(stack.description, { name: 'Third org' });
    const theirProject = await createProject(other.api);
    const theirs = await createDraft(other.api, theirProject, {});
    const calls = model.calls.length;
    const foreign = await sendAssistant(member.api, body('foreign-1', 'Edit it.', { workflowId: theirs.id }));
    expect(foreign.status).toBe(404);
    expect(foreign.error?.code).toBe('workflow_not_found');
    const unknownRun = await sendAssistant(
      member.api,
      body('foreign-2', 'Why?', { runId: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(unknownRun.status).toBe(404);
    expect(unknownRun.error?.code).toBe('run_not_found');
    expect(model.calls.length).toBe(calls);

    const empty = await sendAssistant(member.api, { id: 'x', messages: [] });
    expect(empty.status).toBe(400);
    expect(empty.error?.code).toBe('invalid_request');
  });
});
