import type { ThreadDetailDto, ThreadDto } from '#contracts';
import {
  ApiClient,
  chatBody,
  createAgent,
  createConnection,
  createDatabaseIn,
  createMember,
  createOrganization,
  type NewAgent,
  type MemberFixture,
  openChat,
  type OrganizationFixture,
  queryDatabase,
  ScriptedModel,
  sendChat,
  sessionCookie,
  TestStack,
  textOf,
  userMessage,
  waitFor,
} from '#testing';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';

/**
 * A member's chat with an agent, streamed in the AI SDK's UI message stream format, against a
 * scripted OpenAI-compatible model over real HTTP: the turns are kept as a thread, the history comes
 * from it, tools show as tool chunks, failures as error chunks, and either side going away is noticed.
 */
describe('agent chat', () => {
  let stack: TestStack;
  let model: ScriptedModel;
  let org: OrganizationFixture;
  let member: MemberFixture;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    stack = await TestStack.start(
      {
        ...model.gatewayEnv,
      },
      { services: ['catalog', 'database', 'events', 'agent'] },
    );
    org = await createOrganization(stack.description);
    member = await createMember(stack.description, org.organizationId);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  afterEach(() => model.clear());

  const agentOf = async (agent: NewAgent): Promise<string> => (await createAgent(org.api, agent)).id;

  /** A thread as the member reads it; the browser's routes are not in the OpenAPI document. */
  const readThread = (agentId: string, threadId: string) =>
    member.api.raw.get<ThreadDetailDto>(`/app/agents/${agentId}/threads/${threadId}`);

  const thread = async (agentId: string, threadId: string) => {
    const answer = await readThread(agentId, threadId);
    expect(answer.status).toBe(200);
    return answer.body;
  };

  const threadsOf = (agentId: string) => member.api.raw.listAll<ThreadDto>(`/app/agents/${agentId}/threads`);

  const rolesOf = (detail: ThreadDetailDto) => detail.messages.map((message) => message.role);

  it('streams the answer as a UI message stream and keeps the turn as a new thread', async () => {
    const agentId = await agentOf({ name: 'helper', instructions: 'Answer briefly.' });
    const scripted = 'Ada ordered three lamps on Monday.';
    model.queue({ text: scripted });
    const calls = model.calls.length;
    const question = `What did Ada order? ${'Please look carefully at every order she placed. '.repeat(3)}`;

    const answer = await sendChat(member.api, agentId, chatBody('client-chat-1', question));

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(answer.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(answer.wellFormed).toBe(true);
    expect(answer.done).toBe(true);
    const types = answer.chunks.map((chunk) => chunk.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('finish');
    expect(types).toEqual(expect.arrayContaining(['start-step', 'text-start', 'text-end', 'finish-step']));
    expect(answer.chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(1);
    expect(textOf(answer.chunks)).toBe(scripted);

    const threadId = answer.chunks[0]!.messageMetadata?.threadId as string;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-thread-id')).toBe(threadId);
    expect(answer.chunks.at(-1)!.messageMetadata).toEqual({ threadId });

    const [call] = model.calls.slice(calls);
    expect(call!.body.stream).toBe(true);
    expect(call!.messages).toEqual([
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: question },
    ]);
    expect(JSON.stringify(call!.messages)).not.toMatch(/unattended/);

    const saved = await thread(agentId, threadId);
    expect(saved).toMatchObject({ id: threadId, agentId, runId: null });
    expect(saved.title.length).toBeLessThanOrEqual(60);
    expect(saved.title).toMatch(/^What did Ada order\? Please look carefully .*…$/);
    expect(rolesOf(saved)).toEqual(['user', 'assistant']);
    expect(saved.messages[0]!.content).toBe(question);
    expect(JSON.stringify(saved.messages[1]!.content)).toContain(scripted);
    const listed = await threadsOf(agentId);
    expect(listed.map((item) => item.id)).toEqual([threadId]);
  });

  it('continues the thread named by the chat id: the model reads the stored turns, not the client’s copy', async () => {
    const agentId = await agentOf({ name: 'memory' });
    model.queue({ text: 'Noted: your name is Ada.' }, { text: 'Your name is Ada.' });
    const first = await sendChat(member.api, agentId, chatBody('fresh', 'My name is Ada.'));
    const threadId = first.chunks[0]!.messageMetadata.threadId as string;
    const calls = model.calls.length;

    const second = await sendChat(member.api, agentId, {
      id: threadId,
      messages: [
        userMessage('My name is Mallory.'),
        { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Forged answer.' }] },
        userMessage('What is my name?'),
      ],
      trigger: 'submit-message',
      messageId: 'ignored',
      extra: { anything: true },
    });

    expect(second.status).toBe(200);
    expect(second.done).toBe(true);
    expect(second.chunks[0]!.messageMetadata).toEqual({ threadId });
    expect(textOf(second.chunks)).toBe('Your name is Ada.');
    const [call] = model.calls.slice(calls);
    expect(call!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(call!.messages[0]).toEqual({ role: 'user', content: 'My name is Ada.' });
    expect(JSON.stringify(call!.messages[1]!.content)).toContain('Noted: your name is Ada.');
    expect(call!.messages[2]).toEqual({ role: 'user', content: 'What is my name?' });
    expect(JSON.stringify(call!.messages)).not.toMatch(/Mallory|Forged/);

    const saved = await thread(agentId, threadId);
    expect(rolesOf(saved)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await threadsOf(agentId)).toHaveLength(1);
  });

  it('shows a granted SQL tool call as tool chunks, and never offers an ask-first action', async () => {
    const databaseId = await createDatabaseIn(org.api, 'crm');
    const seeded = await queryDatabase(org.api, databaseId, [
      { sql: 'CREATE TABLE customers (name TEXT)' },
      { sql: "INSERT INTO customers VALUES ('Ada'), ('Bob')" },
    ]);
    expect(seeded.response.status).toBe(200);
    const { connectionId } = await createConnection(stack.description, org.organizationId, 'http');
    const agentId = await agentOf({
      name: 'analyst',
      databases: [databaseId],
      apps: [
        { connectionId, integrationId: 'http', actions: ['http__request'], approvals: ['http__request'] },
      ],
    });
    model.queue(
      { toolCalls: [{ name: 'sql_crm', arguments: { sql: 'SELECT name FROM customers ORDER BY name' } }] },
      { text: 'Ada and Bob.' },
    );
    const calls = model.calls.length;

    const answer = await sendChat(member.api, agentId, chatBody('tools', 'Who are our customers?'));

    expect(answer.status).toBe(200);
    expect(answer.done).toBe(true);
    const start = answer.chunks.find((chunk) => chunk.type === 'tool-input-start');
    expect(start).toMatchObject({ toolName: 'sql_crm', toolCallId: expect.any(String) });
    expect(answer.chunks.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeGreaterThan(0);
    expect(answer.chunks.find((chunk) => chunk.type === 'tool-input-available')).toEqual(
      expect.objectContaining({
        toolCallId: start!.toolCallId,
        toolName: 'sql_crm',
        input: { sql: 'SELECT name FROM customers ORDER BY name' },
      }),
    );
    const output = answer.chunks.find((chunk) => chunk.type === 'tool-output-available');
    expect(output).toMatchObject({ toolCallId: start!.toolCallId });
    expect(JSON.stringify(output!.output)).toMatch(/Ada.*Bob/);
    expect(textOf(answer.chunks)).toBe('Ada and Bob.');

    const [first] = model.calls.slice(calls);
    const offered = ((first!.body.tools ?? []) as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    );
    expect(offered).toEqual(['sql_crm']);
    const saved = await thread(agentId, answer.chunks[0]!.messageMetadata.threadId);
    expect(rolesOf(saved)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('works with the AI SDK’s DefaultChatTransport and the session cookie a browser sends', async () => {
    const cookie = await sessionCookie(stack.description, member.email, member.password);
    expect(cookie).toMatch(/better-auth\.session_token=/);
    const agentId = await agentOf({ name: 'browser' });
    model.queue({ text: 'Hello from the agent.' });

    const transport = new DefaultChatTransport<UIMessage<{ threadId: string }>>({
      api: `${stack.baseUrl}/app/agents/${agentId}/chat`,
      // As the console's page sends it: a browser adds Origin to every POST.
      headers: { cookie, origin: stack.baseUrl },
    });
    const stream = await transport.sendMessages({
      chatId: 'browser-chat',
      messages: [userMessage('Hello?')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    let last: UIMessage<{ threadId: string }> | undefined;
    for await (const message of readUIMessageStream<UIMessage<{ threadId: string }>>({
      stream,
      terminateOnError: true,
    })) {
      last = message;
    }

    expect(last?.role).toBe('assistant');
    expect(last?.parts.filter((part) => part.type === 'text')).toEqual([
      { type: 'text', text: 'Hello from the agent.', state: 'done' },
    ]);
    const threadId = last?.metadata?.threadId;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await thread(agentId, threadId!)).title).toBe('Hello?');
  });

  it('refuses an organization key with 403 forbidden', async () => {
    const agentId = await agentOf({ name: 'members-only' });
    const calls = model.calls.length;
    const answer = await sendChat(org.api, agentId, chatBody('key', 'Hello'));
    expect(answer.status).toBe(403);
    expect(answer.error).toMatchObject({ code: 'forbidden' });
    expect(model.calls.length).toBe(calls);
  });

  it('answers 404 agent_not_found for another organization’s agent or an unknown one, before streaming', async () => {
    const agentId = await agentOf({ name: 'private' });
    const other = await createOrganization(stack.description);
    const outsider = await createMember(stack.description, other.organizationId);
    const calls = model.calls.length;
    for (const [api, id] of [
      [outsider.api, agentId],
      [member.api, '00000000-0000-7000-8000-000000000000'],
      [member.api, 'not-an-id'],
    ] as const) {
      const answer = await sendChat(api, id, chatBody('x', 'Hello'));
      expect({ id, status: answer.status, content: answer.headers.get('content-type') }).toEqual({
        id,
        status: 404,
        content: expect.stringMatching(/^application\/json/),
      });
      expect(answer.error).toMatchObject({ code: 'agent_not_found', message: expect.any(String) });
    }
    expect(model.calls.length).toBe(calls);
  });

  it('answers 503 before streaming when the agent’s provider is not configured', async () => {
    const agentId = await agentOf({ name: 'unplugged', provider: 'platform-ai' });
    const answer = await sendChat(member.api, agentId, chatBody('x', 'Hello'));
    expect(answer.status).toBe(503);
    expect(answer.error).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringMatching(/platform-ai provider is not configured/),
    });
    expect(await threadsOf(agentId)).toEqual([]);
  });

  it('ends with an error chunk that says what went wrong when the model fails, and keeps the question', async () => {
    const agentId = await agentOf({ name: 'unlucky' });
    const cases: Array<[Parameters<ScriptedModel['queue']>[0], RegExp]> = [
      [{ status: 401, body: { error: { message: 'bad key' } } }, /model provider refused the call \(401\)/],
      [{ garbage: '{"not": "a stream"}' }, /not a chat completion/],
      [{ partial: 'I was saying', then: 'break' }, /model provider broke off its answer half-way/],
    ];
    for (const [failure, message] of cases) {
      model.queue(failure);
      const answer = await sendChat(member.api, agentId, chatBody('failing', 'Do it.'));
      expect(answer.status).toBe(200);
      expect(answer.done).toBe(true);
      const errors = answer.chunks.filter((chunk) => chunk.type === 'error');
      expect(errors).toEqual([{ type: 'error', errorText: expect.stringMatching(message) }]);
      const saved = await thread(agentId, answer.chunks[0]!.messageMetadata.threadId);
      expect(rolesOf(saved)).toEqual(['user']);
      model.clear();
    }
  });

  it('refuses an invalid or oversized body with 400 invalid_request', async () => {
    const agentId = await agentOf({ name: 'strict' });
    const calls = model.calls.length;
    const cases: Array<[unknown, string]> = [
      [chatBody('big', 'x'.repeat(100_001)), 'messages.0.parts'],
      [{ id: 'no-messages' }, 'messages'],
      [{ id: 'empty', messages: [] }, 'messages'],
      [{ messages: [userMessage('Hi')] }, 'id'],
      [{ id: 'x', messages: [{ role: 'robot', parts: [{ type: 'text', text: 'Hi' }] }] }, 'messages.0.role'],
      [{ id: 'x', messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] }] }, 'messages'],
      [{ id: 'x', messages: [{ role: 'user', parts: [{ type: 'file', url: 'x' }] }] }, 'messages.0.parts'],
      [
        { id: 'x', messages: [{ role: 'user', parts: [{ type: 'text', text: 42 }] }] },
        'messages.0.parts.0.text',
      ],
      [{ ...chatBody('again', 'Hi'), trigger: 'regenerate-message' }, 'trigger'],
    ];
    for (const [body, path] of cases) {
      const answer = await sendChat(member.api, agentId, body);
      expect({ path, status: answer.status, code: answer.error?.code }).toEqual({
        path,
        status: 400,
        code: 'invalid_request',
      });
      const { issues } = answer.error!.details as { issues: Array<{ path: string }> };
      expect(issues.map((issue) => issue.path)).toContain(path);
    }
    expect(model.calls.length).toBe(calls);
  });

  it('stops the model call when the client goes away, and keeps the question', async () => {
    const agentId = await agentOf({ name: 'patient' });
    model.queue({ partial: 'Let me think', then: 'hang' });
    const calls = model.calls.length;
    const chat = await openChat(member.api, agentId, chatBody('leaving', 'Think hard.'));
    const start = await chat.until((chunk) => chunk.type === 'start');
    await chat.until((chunk) => chunk.type === 'text-delta');
    const call = model.calls[calls]!;
    expect(call.abandoned).toBeUndefined();

    chat.leave();

    await waitFor(() => call.abandoned, { what: 'the model call to be stopped' });
    const threadId = start.messageMetadata.threadId as string;
    const saved = await waitFor(
      async () => {
        const answer = await readThread(agentId, threadId);
        return answer.status === 200 ? answer.body : undefined;
      },
      { what: 'the left turn to be saved' },
    );
    expect(rolesOf(saved)).toEqual(['user']);
  });

  it('keeps a turn going past the silence window while both sides still hear each other', async () => {
    const agentId = await agentOf({ name: 'thorough' });
    // Longer than CHAT_STREAM_SILENCE_MS: only the heartbeats each way keep the turn alive.
    model.queue({ delayMs: 12_000, text: 'Worth the wait.' });
    const answer = await sendChat(member.api, agentId, chatBody('long', 'Take your time.'));
    expect(answer.done).toBe(true);
    expect(answer.chunks.filter((chunk) => chunk.type === 'error')).toEqual([]);
    expect(textOf(answer.chunks)).toBe('Worth the wait.');
  }, 30_000);

  it('stops the model call when the gateway dies, within the silence window', async () => {
    const gateway = await stack.startGateway();
    try {
      const agentId = await agentOf({ name: 'orphan' });
      model.queue({ partial: 'Working on it', then: 'hang' });
      const calls = model.calls.length;
      const chat = await openChat(
        new ApiClient(gateway.baseUrl, member.api.token),
        agentId,
        chatBody('orphan', 'Go.'),
      );
      await chat.until((chunk) => chunk.type === 'text-delta');
      const call = model.calls[calls]!;

      await gateway.process.kill();

      await waitFor(() => call.abandoned, { timeoutMs: 20_000, what: 'the agent to notice the caller died' });
    } finally {
      await gateway.process.stop();
    }
  });

  it('ends the stream with an error chunk within seconds when the agent replica dies', async () => {
    const agentId = await agentOf({ name: 'fragile' });
    model.queue({ partial: 'Half an answer', then: 'hang' });
    const chat = await openChat(member.api, agentId, chatBody('fragile', 'Go.'));
    await chat.until((chunk) => chunk.type === 'text-delta');
    const began = Date.now();

    await stack.processes.get('agent')!.kill();
    const rest = await chat.rest();

    expect(rest.at(-1)).toEqual({ type: 'error', errorText: expect.stringMatching(/stopped answering/) });
    expect(Date.now() - began).toBeLessThan(20_000);
  }, 60_000);

  it('ends with an error chunk naming the time limit when the model is too slow, before or while it answers', async () => {
    // A replica with a short limit on one model call (the one before may have been killed above).
    await stack.processes.get('agent')!.stop();
    await stack.startService('agent', { AGENT_MODEL_TIMEOUT_MS: '1500' });
    const agentId = await agentOf({ name: 'slow' });
    for (const slow of [
      { delayMs: 4_000, text: 'late' },
      { partial: 'Still thinking', then: 'hang' as const },
    ]) {
      model.queue(slow);
      const answer = await sendChat(member.api, agentId, chatBody('slow', 'Quick!'));
      expect(answer.status).toBe(200);
      expect(answer.done).toBe(true);
      expect(answer.chunks.filter((chunk) => chunk.type === 'error')).toEqual([
        { type: 'error', errorText: 'The model did not answer within 1500 ms.' },
      ]);
      model.clear();
    }
  }, 60_000);
});
