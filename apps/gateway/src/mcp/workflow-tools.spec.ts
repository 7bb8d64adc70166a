import type { McpWorkflowTool, WorkflowRunDto } from '#contracts';

import { callResultOf, runInputOf, workflowTools } from './workflow-tools.js';

const workflow = (name: string, extra: Partial<McpWorkflowTool> = {}): McpWorkflowTool => ({
  workflowId: `id-${name}`,
  name,
  description: null,
  triggerNodeId: 'start',
  inputSchema: null,
  ...extra,
});

const run = (extra: Partial<WorkflowRunDto>) =>
  ({ id: 'run-1', reply: null, error: null, ...extra }) as WorkflowRunDto;

describe('workflowTools', () => {
  it('names tools after their workflows, each name once', () => {
    const tools = workflowTools([workflow('Send Invoice!'), workflow('send invoice'), workflow('***')]);

    expect(tools.map(({ tool }) => tool.name)).toEqual(['send_invoice', 'send_invoice_2', 'workflow']);
    expect(tools[0]!.tool).toMatchObject({
      title: 'Send Invoice!',
      description: 'Runs the workflow "Send Invoice!" and answers its reply.',
      inputSchema: { type: 'object', properties: { input: { type: 'string' } } },
    });
  });
});

describe('runInputOf', () => {
  it('takes the free text input without a schema, and the arguments as JSON with one', () => {
    expect(runInputOf(workflow('a'), { input: 'hello' })).toEqual({ input: 'hello' });
    expect(runInputOf(workflow('a'), {})).toEqual({ input: '' });
    expect(runInputOf(workflow('a'), { input: { n: 1 } })).toEqual({ input: '{"n":1}' });
    const typed = workflow('b', {
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    });
    expect(runInputOf(typed, { n: 2 })).toEqual({ input: '{"n":2}' });
    expect(runInputOf(typed, { n: 'two' })).toEqual({
      problem: "The arguments do not match the tool's input schema: /n must be integer.",
    });
  });
});

describe('callResultOf', () => {
  const waited = { seconds: 55, awaitsDecision: false };

  it('answers the reply, the error as a tool error, or where the run stands', () => {
    expect(callResultOf(run({ status: 'complete', reply: '42' }), waited)).toMatchObject({
      content: [{ type: 'text', text: '42' }],
      _meta: { runId: 'run-1', status: 'complete' },
    });
    expect(callResultOf(run({ status: 'errored', error: 'boom' }), waited)).toMatchObject({
      isError: true,
      content: [{ text: 'The run run-1 ended errored: boom' }],
    });
    expect(callResultOf(run({ status: 'waiting' }), { seconds: 55, awaitsDecision: true }).content).toEqual([
      expect.objectContaining({ text: expect.stringMatching(/^The run run-1 is waiting for an approval/) }),
    ]);
    expect(callResultOf(run({ status: 'running' }), waited).content).toEqual([
      expect.objectContaining({ text: expect.stringMatching(/^The run run-1 is running after 55 s/) }),
    ]);
  });
});
