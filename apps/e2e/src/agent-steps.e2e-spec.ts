import type { ThreadDetailDto, ThreadDto } from '#contracts';
import {
  chainOf,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  rowsOf,
  runReaches,
  type Schemas,
  ScriptedModel,
  startRun,
  stepOf,
  TestStack,
} from '#testing';

/**
 * The Agent step against a scripted OpenAI-compatible model over real HTTP: the answer becomes the
 * step's output and the run's reply, the conversation a thread, and every way the model can fail a
 * clear step error. The stack is its own, with the AI gateway pointed at the scripted model.
 */
describe('agent steps', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let org: OrganizationFixture;
  let projectId: string;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    stack = await TestStack.start(
      {
        ...model.gatewayEnv,
        AGENT_MODEL_TIMEOUT_MS: '1500',
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      },
      // Nothing here stops a service, so they share one process, as `npm start` runs them.
      { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'], allInOne: true },
    );
    org = await createOrganization(stack.description);
    projectId = await createProject(org.api, 'Agent steps');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  type NewAgent = Schemas['CreateAgentDto'];

  async function runAgent(agent: NewAgent, input: unknown, task?: string) {
    const created = await org.api.POST('/api/v1/agents', { body: agent });
    expect(created.response.status).toBe(201);
    const workflowName = `Ask ${agent.name}`;
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.agent('ask', created.data!.id, task)),
      { name: workflowName },
    );
    const started = await startRun(org.api, workflowId, {
      input: typeof input === 'string' ? input : JSON.stringify(input),
    });
    expect(started.response.status).toBe(201);
    const run = await runReaches(org.api, started.data!.id, ['complete', 'errored'], {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the agent run to end',
    });
    return { run, step: stepOf(run, 'ask')!, workflowName };
  }

  it('answers the task unattended: the answer is the output and the reply, the conversation a thread', async () => {
    model.queue({ text: 'Ada ordered 3 lamps.' });
    const calls = model.calls.length;
    const { run, step, workflowName } = await runAgent(
      { name: 'summarizer', instructions: 'Summarize orders in one line.', thinkingLevel: 'low' },
      { customer: 'Ada', lamps: 3 },
      'Summarize the order of {{trigger.customer}}.',
    );
    expect(run.status).toBe('complete');
    expect(step.output).toEqual({
      response: 'Ada ordered 3 lamps.',
      thread: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tools: '',
      approvals: '[]',
    });
    expect(run.reply).toBe('Ada ordered 3 lamps.');

    const [call] = model.calls.slice(calls);
    expect(call!.model).toBe('scripted-default');
    expect(call!.body.reasoning_effort).toBe('low');
    const [system, user] = call!.messages;
    expect(system).toMatchObject({ role: 'system' });
    expect(String(system!.content)).toMatch(/^Summarize orders in one line\.[\s\S]*unattended/);
    expect(user).toEqual({ role: 'user', content: 'Summarize the order of Ada.' });

    const db = await import('pg');
    const client = new db.default.Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT t.title, array_agg(m.role ORDER BY m.position) AS roles
           FROM agent.threads t JOIN agent.messages m ON m.thread_id = t.id
          WHERE t.id = $1 GROUP BY t.title`,
        [step.output!.thread],
      );
      expect(rows).toEqual([{ title: `${workflowName} · run ${run.id}`, roles: ['user', 'assistant'] }]);
    } finally {
      await client.end();
    }
  });

  it('takes the raw input as the task right after the trigger, the agent’s model, and no effort when off', async () => {
    const calls = model.calls.length;
    const { run } = await runAgent(
      { name: 'raw-input', model: 'custom-model', thinkingLevel: 'off' },
      'Plain text from the caller',
    );
    expect(run.status).toBe('complete');
    const [call] = model.calls.slice(calls);
    expect(call!.model).toBe('custom-model');
    expect(call!.body).not.toHaveProperty('reasoning_effort');
    expect(call!.messages.at(-1)).toEqual({ role: 'user', content: 'Plain text from the caller' });
  });

  it('fails the step with a clear message when the model refuses, answers garbage, is slow or is not configured', async () => {
    const cases: Array<[NewAgent, RegExp, (() => void)?]> = [
      [
        { name: 'refused' },
        /refused the call \(401\)/,
        () => model.queue({ status: 401, body: { error: { message: 'bad key' } } }),
      ],
      [
        { name: 'garbage' },
        /not a chat completion/,
        () => model.queue({ garbage: '{"not": "a completion"}' }),
      ],
      [
        { name: 'slow' },
        /did not answer within 1500 ms/,
        () => model.queue({ delayMs: 4_000, text: 'late' }),
      ],
      [{ name: 'unconfigured', provider: 'platform-ai' }, /platform-ai provider is not configured/],
    ];
    for (const [agent, message, script] of cases) {
      script?.();
      const { run, step } = await runAgent(agent, {}, 'Do it.');
      expect({ agent: agent.name, status: run.status }).toEqual({ agent: agent.name, status: 'errored' });
      expect(step).toMatchObject({ status: 'error', error: expect.stringMatching(message) });
      model.clear();
    }
  });

  it('calls its granted tools: SQL reads, a refused write on a read-only grant, a skill and an app action', async () => {
    const target = await HttpTarget.start();
    try {
      const databaseId = (
        await org.api.POST('/api/v1/databases', { body: { name: 'crm', description: 'Customers' } })
      ).data!.id;
      const seeded = await org.api.POST('/api/v1/databases/{id}/query', {
        params: { path: { id: databaseId } },
        body: {
          statements: [
            { sql: 'CREATE TABLE customers (name TEXT)' },
            { sql: "INSERT INTO customers VALUES ('Ada'), ('Bob')" },
          ],
        },
      });
      expect(seeded.response.status).toBe(200);
      const skillId = (
        await org.api.POST('/api/v1/skills', {
          body: {
            name: 'tone',
            description: 'How to write',
            instructions: 'Be kind.',
          },
        })
      ).data!.id;
      const { connectionId } = await createConnection(stack.description, org.organizationId, 'http');
      model.queue(
        {
          toolCalls: [
            { name: 'sql_crm', arguments: { sql: 'SELECT name FROM customers ORDER BY name' } },
            { name: 'load_skill', arguments: { name: 'tone' } },
            {
              name: 'http__request',
              arguments: { method: 'POST', url: `${target.url}/notify`, body: { hi: 1 } },
            },
          ],
        },
        { toolCalls: [{ name: 'sql_crm', arguments: { sql: "INSERT INTO customers VALUES ('Eve')" } }] },
        { text: 'Ada and Bob are customers; I could not add Eve.' },
      );
      const calls = model.calls.length;
      const { run, step } = await runAgent(
        {
          name: 'tooled',
          apps: [{ connectionId, integrationId: 'http', actions: ['http__request'], approvals: [] }],
          skills: [skillId],
          databases: [databaseId],
        },
        {},
        'Who are our customers? Add Eve.',
      );
      expect(run.status).toBe('complete');
      expect(step.output!.response).toBe('Ada and Bob are customers; I could not add Eve.');
      const lines = step.output!.tools!.split('\n');
      expect(lines.slice(0, 3)).toEqual(['sql_crm ok', 'load_skill ok', 'http__request ok']);
      expect(lines[3]).toMatch(/^sql_crm: .*read-only/);

      const [first, second, third] = model.calls.slice(calls);
      const offered = ((first!.body.tools ?? []) as Array<{ function: { name: string } }>).map(
        (t) => t.function.name,
      );
      expect(offered.sort()).toEqual(['http__request', 'load_skill', 'sql_crm']);
      expect(String(first!.messages[0]!.content)).toMatch(/- tone: How to write/);
      const results = JSON.stringify(second!.messages);
      expect(results).toMatch(/Ada/);
      expect(results).toMatch(/Be kind\./);
      expect(JSON.stringify(third!.messages)).toMatch(/read-only/);

      const [notified] = target.requestsTo('/notify');
      expect(JSON.parse(notified!.body)).toEqual({ hi: 1 });
      expect(notified!.headers['idempotency-key']).toMatch(new RegExp(`^${run.id}:ask:call_`));
      const [count] = await rowsOf(org.api, databaseId, [{ sql: 'SELECT count(*) AS n FROM customers' }]);
      // BIGINT counts come back as text (docs/databases.md).
      expect(count).toEqual([['2']]);
    } finally {
      await target.stop();
    }
  });

  it('shows an agent’s threads to signed-in members only, each with its messages in order', async () => {
    model.queue({ text: 'Noted.' });
    const { run, step } = await runAgent({ name: 'threaded' }, {}, 'Remember this.');
    expect(run.status).toBe('complete');
    const agentId = (JSON.parse(step.input!) as { agentId: string }).agentId;
    const threadId = step.output!.thread!;
    const member = await createMember(stack.description, org.organizationId);

    const threads = await member.api.raw.listAll<ThreadDto>(`/app/agents/${agentId}/threads`);
    expect(threads).toEqual([
      expect.objectContaining({
        id: threadId,
        agentId,
        runId: run.id,
        title: expect.stringContaining(run.id),
      }),
    ]);
    const thread = await member.api.raw.get<ThreadDetailDto>(`/app/agents/${agentId}/threads/${threadId}`);
    expect(thread.status).toBe(200);
    expect(thread.body.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(thread.body.messages[0]!.content).toBe('Remember this.');

    // Organization keys are refused; other organizations see no such agent.
    expect((await org.api.raw.get<ErrorBody>(`/app/agents/${agentId}/threads`)).body.error.code).toBe(
      'forbidden',
    );
    const outsider = await createMember(
      stack.description,
      (await createOrganization(stack.description)).organizationId,
    );
    expect((await outsider.api.raw.get<ErrorBody>(`/app/agents/${agentId}/threads`)).body.error.code).toBe(
      'agent_not_found',
    );
    expect(
      (await outsider.api.raw.get<ErrorBody>(`/app/agents/${agentId}/threads/${threadId}`)).body.error.code,
    ).toBe('agent_not_found');
    expect((await member.api.raw.get(`/app/agents/${agentId}/threads/${run.id}`)).status).toBe(404);
  });
});
