/**
 * The workflow assistant's context (issue 29, "cost in view"): what a first turn sends the model on
 * an organization with `--agents` agents, `--databases` databases (each with a table) and
 * `--connections` app connections, against the scripted OpenAI-compatible model.
 *
 * Two first turns are measured, each from the requests the model receives:
 * - "answers at once": the model answers the question without a tool (the floor: system prompt,
 *   tool definitions and question);
 * - "reads everything": the model first lists the node types, agents, databases and connections and
 *   reads one node type's schema, then answers (what a turn that needs all of it costs).
 * Tokens are estimated as characters / 4 of the JSON the model receives (system, messages and tool
 * definitions); the scripted model does not tokenize. For comparison, "pasted whole" is what the same
 * data would be if it were put into every turn: every node type's schema and every list in full.
 *
 *   npm run build && node dist/tools/bench/assistant-context-bench.js [--agents 50] [--databases 50] [--connections 20]
 */
import { NODE_TYPE_SCHEMAS } from '#contracts';
import {
  chatBody,
  createConnection,
  createMember,
  createOrganization,
  type ModelCall,
  ScriptedModel,
  sendAssistant,
  TestStack,
} from '#testing';

import { argument, benchContext, must } from './src/context.js';

const agents = Number(argument('agents', '50'));
const databases = Number(argument('databases', '50'));
const connections = Number(argument('connections', '20'));

const context = benchContext();
const model = await ScriptedModel.start();
const stack = await TestStack.start(
  // As under Jest: better-auth checks a sign-in's origin against the catalog's PUBLIC_URL otherwise.
  { LOG_LEVEL: 'warn', NODE_ENV: 'test', ...model.gatewayEnv },
  { services: ['catalog', 'database', 'events', 'agent', 'workflow', 'runner'] },
);

/** What a model call sends: the system prompt and messages, and the tool definitions. */
const sizeOf = (call: ModelCall) =>
  JSON.stringify({ messages: call.body.messages, tools: call.body.tools ?? [] }).length;
const tokens = (chars: number) => Math.round(chars / 4);

try {
  const org = await createOrganization(stack.description);
  const member = await createMember(stack.description, org.organizationId);
  for (let index = 0; index < agents; index += 1) {
    must(
      await org.api.POST('/api/v1/agents', {
        body: {
          name: `agent-${index}`,
          description: `Answers questions about topic ${index} for the support team.`,
          instructions: 'Answer briefly.',
        },
      }),
      201,
    );
  }
  for (let index = 0; index < databases; index += 1) {
    const { id } = must(await org.api.POST('/api/v1/databases', { body: { name: `db-${index}` } }), 201);
    must(
      await org.api.POST('/api/v1/databases/{id}/query', {
        params: { path: { id } },
        body: { statements: [{ sql: 'CREATE TABLE orders (id INTEGER, customer TEXT, total DOUBLE)' }] },
      }),
      200,
    );
  }
  for (let index = 0; index < connections; index += 1) {
    await createConnection(stack.description, org.organizationId, index % 2 === 0 ? 'http' : 'webhook');
  }

  const turn = async (id: string, script: Parameters<ScriptedModel['queue']>) => {
    model.queue(...script);
    const before = model.calls.length;
    const answer = await sendAssistant(
      member.api,
      chatBody(id, 'Build a workflow that files each new order.'),
    );
    if (answer.status !== 200) throw new Error(`the assistant answered ${answer.status}`);
    return model.calls.slice(before).map(sizeOf);
  };
  const atOnce = await turn('bench-at-once', [{ text: 'Tell me more about the orders.' }]);
  const readsAll = await turn('bench-reads-all', [
    {
      toolCalls: [
        { name: 'list_node_types', arguments: {} },
        { name: 'get_node_type', arguments: { type: 'database' } },
        { name: 'list_agents', arguments: {} },
        { name: 'list_databases', arguments: {} },
        { name: 'list_connections', arguments: {} },
      ],
    },
    { text: 'Which database should it write to?' },
  ]);
  const lists = await Promise.all([
    org.api.GET('/api/v1/agents', { params: { query: { limit: 100 } } }),
    org.api.GET('/api/v1/databases', { params: { query: { limit: 100 } } }),
  ]);
  const pasted = JSON.stringify({ NODE_TYPE_SCHEMAS, lists: lists.map((list) => list.data) }).length;

  const row = (label: string, sizes: number[]) =>
    `| ${label} | ${sizes.length} | ${sizes.map((size) => `${size} (${tokens(size)})`).join(' + ')} | ${tokens(sizes.reduce((sum, size) => sum + size, 0))} |`;
  console.log(`\n${context.line}`);
  console.log(`organization: ${agents} agents, ${databases} databases, ${connections} connections\n`);
  console.log(
    '| first turn | model calls | characters sent per call (≈ tokens) | ≈ input tokens of the turn |',
  );
  console.log('|---|---|---|---|');
  console.log(row('answers at once', atOnce));
  console.log(row('reads everything', readsAll));
  console.log(
    `\npasted whole (schemas + agents + databases, without connections): ${pasted} characters ≈ ${tokens(pasted)} tokens per call`,
  );
} finally {
  await stack.stop();
  await model.stop();
}
