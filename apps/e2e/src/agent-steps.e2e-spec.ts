import type { ThreadDetailDto, ThreadDto } from '#contracts';
import {
  type ApiClient,
  chainOf,
  createAgent,
  createConnection,
  createMember,
  createOrganization,
  createProject,
  createSkill,
  createWorkflow,
  type ErrorBody,
  expectData,
  HttpTarget,
  type NewAgent,
  nodes,
  type OrganizationFixture,
  queryDatabase,
  rowsOf,
  runReaches,
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

  async function runAgent(agent: NewAgent, input: unknown, task?: string) {
    const { id: agentId } = await createAgent(org.api, agent);
    const workflowName = `Ask ${agent.name}`;
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('t'), nodes.agent('ask', agentId, task)),
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
      // The extension beyond the contract's four fields: the tokens of each model call (docs/usage.md).
      usage: JSON.stringify({
        calls: [
          {
            provider: 'gateway',
            model: 'scripted-default',
            inputTokens: 10,
            outputTokens: 5,
            reasoningTokens: 0,
            cachedInputTokens: 0,
          },
        ],
        total: { inputTokens: 10, outputTokens: 5, reasoningTokens: 0, cachedInputTokens: 0 },
      }),
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
      const database = await org.api.POST('/api/v1/databases', {
        body: { name: 'crm', description: 'Customers' },
      });
      const databaseId = expectData(database, 201).id;
      const seeded = await queryDatabase(org.api, databaseId, [
        { sql: 'CREATE TABLE customers (name TEXT)' },
        { sql: "INSERT INTO customers VALUES ('Ada'), ('Bob')" },
      ]);
      expect(seeded.response.status).toBe(200);
      const skillId = await createSkill(org.api, {
        name: 'tone',
        description: 'How to write',
        instructions: 'Be kind.',
      });
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
    const { agentId } = JSON.parse(step.input!) as { agentId: string };
    const thread = step.output!.thread!;
    const member = await createMember(stack.description, org.organizationId);

    // The console's routes (/app) are not in the document: through raw, typed by the contract's DTOs.
    const threads = await member.api.raw.listAll<ThreadDto>(`/app/agents/${agentId}/threads`);
    expect(threads).toEqual([
      expect.objectContaining({
        id: thread,
        agentId,
        runId: run.id,
        title: expect.stringContaining(run.id),
      }),
    ]);
    const detail = await member.api.raw.get<ThreadDetailDto>(`/app/agents/${agentId}/threads/${thread}`);
    expect(detail.status).toBe(200);
    expect(detail.body.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(detail.body.messages[0]!.content).toBe('Remember this.');

    // Organization keys are refused; other organizations see no such agent.
    const refused = async (client: ApiClient, path: string) =>
      (await client.raw.get<ErrorBody>(path)).body.error.code;
    expect(await refused(org.api, `/app/agents/${agentId}/threads`)).toBe('forbidden');
    const outsider = await createMember(
      stack.description,
      (await createOrganization(stack.description)).organizationId,
    );
    expect(await refused(outsider.api, `/app/agents/${agentId}/threads`)).toBe('agent_not_found');
    expect(await refused(outsider.api, `/app/agents/${agentId}/threads/${thread}`)).toBe('agent_not_found');
    expect((await member.api.raw.get(`/app/agents/${agentId}/threads/${run.id}`)).status).toBe(404);
  });
});
