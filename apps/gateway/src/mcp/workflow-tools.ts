import {
  compileMcpInputSchema,
  DEFAULT_MCP_INPUT_SCHEMA,
  type McpWorkflowTool,
  type RunStatus,
  type WorkflowRunDto,
} from '#contracts';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { LRUCache } from 'lru-cache';

/** MCP tool names: letters, digits, `_` and `-` (what every client accepts), at most 64. */
const TOOL_NAME_MAX = 64;

/** A published workflow as an MCP tool, with the name a call uses. */
export interface WorkflowTool {
  tool: Tool;
  workflow: McpWorkflowTool;
}

/**
 * The tools of the organization's opted-in workflows, named after the workflows (lower case, other
 * characters as `_`; `_2`, `_3` … when two would be the same), in the order listed.
 */
export function workflowTools(workflows: readonly McpWorkflowTool[]): WorkflowTool[] {
  const taken = new Set<string>();
  return workflows.map((workflow) => {
    const base =
      workflow.name
        .toLowerCase()
        .replace(/[^a-z0-9_-]+/g, '_')
        .replace(/^_+|_+$/g, '')
        .slice(0, TOOL_NAME_MAX - 4) || 'workflow';
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}_${n}`;
    taken.add(name);
    return {
      workflow,
      tool: {
        name,
        title: workflow.name,
        description: workflow.description || `Runs the workflow "${workflow.name}" and answers its reply.`,
        inputSchema: (workflow.inputSchema ?? DEFAULT_MCP_INPUT_SCHEMA) as Tool['inputSchema'],
      },
    };
  });
}

const validators = new LRUCache<string, ReturnType<typeof compileMcpInputSchema>>({ max: 500 });

/**
 * The run's input for a call's arguments: the free text `input` without a declared schema, else the
 * arguments as JSON once they match the trigger's `inputSchema`. A string is a problem to tell the caller.
 */
export function runInputOf(
  workflow: McpWorkflowTool,
  args: Record<string, unknown>,
): { input: string } | { problem: string } {
  if (!workflow.inputSchema) {
    const input = args.input;
    if (input === undefined || input === null) return { input: '' };
    return { input: typeof input === 'string' ? input : JSON.stringify(input) };
  }
  const key = `${workflow.workflowId}\u0000${JSON.stringify(workflow.inputSchema)}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = compileMcpInputSchema(workflow.inputSchema);
    validators.set(key, validate);
  }
  if (validate(args)) return { input: JSON.stringify(args) };
  const problems = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '(arguments)'} ${error.message ?? 'is not valid'}`,
  );
  return { problem: `The arguments do not match the tool's input schema: ${problems.join('; ')}.` };
}

const FAILED: readonly RunStatus[] = ['errored', 'terminated'];

/** What a call answers once its wait ended: the run's reply, its error, or where it stands. */
export function callResultOf(
  run: WorkflowRunDto,
  waited: { seconds: number; awaitsDecision: boolean },
): CallToolResult {
  const text = (value: string): CallToolResult['content'] => [{ type: 'text', text: value }];
  const _meta = { runId: run.id, status: run.status };
  if (run.status === 'complete') return { content: text(run.reply ?? ''), _meta };
  if (FAILED.includes(run.status)) {
    return {
      isError: true,
      content: text(`The run ${run.id} ended ${run.status}: ${run.error ?? 'no error was recorded'}`),
      _meta,
    };
  }
  if (run.status === 'waiting' && waited.awaitsDecision) {
    return {
      content: text(
        `The run ${run.id} is waiting for an approval. Once a member decides it, read the run's reply with GET /api/v1/runs/${run.id}.`,
      ),
      _meta,
    };
  }
  return {
    content: text(
      `The run ${run.id} is ${run.status} after ${waited.seconds} s; read its reply later with GET /api/v1/runs/${run.id}.`,
    ),
    _meta,
  };
}
