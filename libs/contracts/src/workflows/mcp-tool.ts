import { Ajv } from 'ajv';

import type { Diagram, DiagramNode } from './diagram.js';
import type { DiagramIssue } from './validate-diagram.js';

/** The most a trigger's `inputSchema` may be, in bytes of JSON. */
export const MCP_INPUT_SCHEMA_MAX_BYTES = 16_384;

/** The most workflows one organization's `/mcp` lists as tools (docs/mcp.md). */
export const MCP_TOOLS_MAX = 200;

/** A workflow's tool input when its trigger declares none: one free text, the run's input. */
export const DEFAULT_MCP_INPUT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: "The run's input." } },
} as const;

/** A published workflow offered as a tool on `/mcp` (`WorkflowSubjects.mcpTools`). */
export interface McpWorkflowTool {
  workflowId: string;
  name: string;
  description: string | null;
  /** The api (or manual) trigger a call starts the run at. */
  triggerNodeId: string;
  /** The trigger's `inputSchema`; null: `DEFAULT_MCP_INPUT_SCHEMA`, its `input` the run's input. */
  inputSchema: Record<string, unknown> | null;
}

export interface McpWorkflowToolsReply {
  tools: McpWorkflowTool[];
}

/** Whether the diagram opts in to `/mcp` (`settings.mcp.enabled`, off by default). */
export function isMcpTool(diagram: Diagram): boolean {
  const mcp = (diagram.settings as { mcp?: { enabled?: unknown } } | undefined)?.mcp;
  return mcp?.enabled === true;
}

/** The trigger a tool call starts at: the first `api` trigger, else the first `manual` one. */
export function mcpEntryTrigger(diagram: Diagram): DiagramNode | undefined {
  const triggers = diagram.nodes.filter((node) => node.data.type === 'trigger');
  const kind = (node: DiagramNode) => node.data.properties.kind;
  return triggers.find((node) => kind(node) === 'api') ?? triggers.find((node) => kind(node) === 'manual');
}

let schemaCompiler: Ajv | undefined;

/** Compiles the schemas members write: unknown keywords and formats are not errors. */
function compiler(): Ajv {
  schemaCompiler ??= new Ajv({ strict: false, validateFormats: false, allErrors: true });
  return schemaCompiler;
}

/** A trigger's `inputSchema` compiled, to check a tool call's arguments with. */
export function compileMcpInputSchema(schema: Record<string, unknown>) {
  return compiler().compile(schema);
}

/**
 * Publish rules of the MCP opt-in: an opted-in workflow has an `api` or `manual` trigger to start
 * at, and every trigger's `inputSchema` is a JSON schema of an object, small enough, that compiles.
 */
export function mcpIssues(diagram: Diagram): DiagramIssue[] {
  const issues: DiagramIssue[] = [];
  if (isMcpTool(diagram) && !mcpEntryTrigger(diagram)) {
    issues.push({
      path: 'settings.mcp',
      message: 'a workflow offered as an MCP tool needs an api or manual trigger for its calls to start at',
    });
  }
  diagram.nodes.forEach((node, index) => {
    if (node.data.type !== 'trigger') return;
    const schema = node.data.properties.inputSchema;
    if (schema === undefined) return;
    const path = `nodes.${index}.data.properties.inputSchema`;
    const problem = inputSchemaProblem(schema);
    if (problem) issues.push({ path, nodeId: node.id, message: `trigger "${node.id}": ${problem}` });
  });
  return issues;
}

function inputSchemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'inputSchema must be a JSON schema object';
  }
  if ((schema as { type?: unknown }).type !== 'object') {
    return 'inputSchema must describe an object (`"type": "object"`): tool arguments are one';
  }
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > MCP_INPUT_SCHEMA_MAX_BYTES) {
    return `inputSchema is ${bytes} bytes as JSON; at most ${MCP_INPUT_SCHEMA_MAX_BYTES}`;
  }
  try {
    compileMcpInputSchema(schema as Record<string, unknown>);
    return null;
  } catch (error) {
    return `inputSchema is not a valid JSON schema: ${(error as Error).message}`;
  }
}
