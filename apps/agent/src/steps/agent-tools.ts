import { DomainException } from '#common';
import {
  ACTION_ANSWER_MARGIN_MS,
  ACTION_DEFAULT_TIMEOUT_MS,
  type ActionInputSchema,
  type ActionResult,
  ACTION_INPUT_SCHEMAS,
  actionTimeoutMs,
  isMcpToolRef,
  type McpServerToolsDto,
  mcpToolRef,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  type MountedSkill,
  type Principal,
  QUERY_REPLY_TIMEOUT_MS,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';
import { type JSONSchema7, jsonSchema, type ModelMessage, tool, type ToolSet } from 'ai';

import { AgentConfig } from '../agent.config.js';
import type { AgentRecord, AppGrant } from '../agents/agent.mapper.js';

/** Tool names as providers accept them: letters, digits, `_` and `-`, at most 64. */
const TOOL_NAME_MAX = 64;

export interface StepScope {
  principal: Principal;
  runId: string;
  nodeId: string;
}

/** An ask-first tool: the action it calls and the connection it calls it with. */
export interface AskFirstAction {
  action: string;
  connectionId: string;
}

export interface AgentToolbox {
  tools: ToolSet;
  skills: MountedSkill[];
  /** By tool name: the tools that wait for approval before they run. */
  askFirst: ReadonlyMap<string, AskFirstAction>;
}

/** An app action called for an agent, with the key that lets the app recognise a repeat. */
export interface ActionCall extends AskFirstAction {
  input: unknown;
  idempotencyKey: string;
  /** The run it is for: a cancel of the run aborts the call in the events service. */
  runId: string;
}

/** `name`, or `name_2`, `name_3` … when an earlier tool took it. */
function uniqueName(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, TOOL_NAME_MAX - 3);
  let candidate = base;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${base}_${n}`;
  taken.add(candidate);
  return candidate;
}

/** The text of an error the SDK kept in a tool result. */
function errorText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * One line per tool call in these messages: the tool and `ok`, the tool and its error, or the
 * tool and the denial of its approval.
 */
export function toolLines(messages: readonly ModelMessage[]): string {
  return messages
    .flatMap((message) => (message.role === 'tool' ? message.content : []))
    .flatMap((part) => {
      if (part.type !== 'tool-result') return [];
      const output = part.output;
      switch (output.type) {
        case 'error-text':
        case 'error-json':
          return [`${part.toolName}: ${errorText(output.value)}`];
        case 'execution-denied':
          return [`${part.toolName}: denied${output.reason ? ` (${output.reason})` : ''}`];
        case 'text':
        case 'json':
        case 'content':
          return [`${part.toolName} ok`];
      }
    })
    .join('\n');
}

/** What the model is told of a granted action: built-ins from the contract, MCP tools from their server's list. */
function describerOf(
  grant: AppGrant,
  mcpServers: readonly McpServerToolsDto[],
): (action: string) => { description: string; input: ActionInputSchema } | undefined {
  if (grant.integrationId !== 'mcp') return (action) => ACTION_INPUT_SCHEMAS[action];
  const listed = new Map(
    (mcpServers.find((server) => server.connectionId === grant.connectionId)?.tools ?? []).map(
      (serverTool) => [mcpToolRef(serverTool.name), serverTool],
    ),
  );
  return (action) => {
    const serverTool = listed.get(action);
    if (!serverTool) return undefined;
    const { name, title, description } = serverTool;
    return {
      description: `${title && title !== name ? `${title}: ` : ''}${description || `The MCP tool ${name}.`} (an MCP server's tool)`,
      input: serverTool.inputSchema,
    };
  };
}

/** `<runId>:<nodeId>:<toolCallId>`: the key an app sees for one call of a step. */
export function actionKey(scope: Pick<StepScope, 'runId' | 'nodeId'>, toolCallId: string): string {
  return `${scope.runId}:${scope.nodeId}:${toolCallId}`;
}

/**
 * The tools an agent's grants give it for one step: each granted app action (through the events
 * service, with its grant's connection), one SQL tool per granted database (read-only unless granted
 * writes: the database service refuses anything else), and `load_skill` for its mounted skills. What a
 * tool gives back to the model is bounded. An ask-first action stops the loop with an approval
 * request (the AI SDK's `needsApproval`); the step waits, and the action runs once it is approved.
 */
@Injectable()
export class AgentTools {
  constructor(
    private readonly rpc: RpcClient,
    private readonly config: AgentConfig,
  ) {}

  async forStep(agent: AgentRecord, scope: StepScope): Promise<AgentToolbox> {
    const { principal } = scope;
    const mcpConnectionIds = agent.apps
      .filter((grant) => grant.integrationId === 'mcp')
      .map((grant) => grant.connectionId);
    const [skills, databases, mcpServers] = await Promise.all([
      agent.skills.length === 0
        ? []
        : this.rpc
            .request(CatalogSubjects.skillsMount, principal, { ids: agent.skills })
            .then((reply) => reply.skills),
      Promise.all(
        agent.databases.map((id) =>
          this.rpc.request(DatabaseSubjects.get, principal, { id }).catch((error: unknown) => {
            // A database deleted since it was granted is simply not offered.
            if (error instanceof DomainException && error.code === 'database_not_found') return null;
            throw error;
          }),
        ),
      ),
      mcpConnectionIds.length === 0
        ? []
        : this.rpc
            .request(EventsSubjects.mcpTools, principal, { connectionIds: mcpConnectionIds })
            .then((reply) => reply.servers),
    ]);
    const tools: ToolSet = {};
    const names = new Set<string>();
    const askFirst = new Map<string, AskFirstAction>();

    for (const grant of agent.apps) {
      const described = describerOf(grant, mcpServers);
      for (const action of grant.actions) {
        const offered = described(action);
        // A built-in action this version does not know, or a tool its MCP server no longer lists.
        if (!offered) continue;
        const name = uniqueName(action, names);
        const needsApproval = grant.approvals.includes(action);
        if (needsApproval) askFirst.set(name, { action, connectionId: grant.connectionId });
        tools[name] = tool({
          description:
            `${offered.description} (connection ${grant.connectionId})` +
            (needsApproval ? '. A member must approve each call before it runs.' : ''),
          inputSchema: jsonSchema<Record<string, unknown>>(offered.input as JSONSchema7),
          needsApproval,
          execute: async (input, { toolCallId }) => {
            // An approved call runs when it is approved, and its outcome answers it on resume.
            if (needsApproval) throw new Error('This call waits for approval.');
            const done = await this.runAction(principal, {
              connectionId: grant.connectionId,
              action,
              input,
              idempotencyKey: actionKey(scope, toolCallId),
              runId: scope.runId,
            });
            return this.bounded(done);
          },
        });
      }
    }

    for (const database of databases) {
      if (!database) continue;
      const writable = agent.databaseWrites.includes(database.id);
      tools[uniqueName(`sql_${database.name}`, names)] = tool({
        description:
          `Runs one SQL statement (DuckDB dialect) on the database ${database.name}` +
          `${database.description ? ` (${database.description})` : ''}. ` +
          (writable ? 'It may read and write.' : 'Read-only: only SELECT statements run.'),
        inputSchema: jsonSchema<{ sql: string; params?: Array<string | number | boolean | null> }>({
          type: 'object',
          properties: {
            sql: { type: 'string', description: 'One statement; `?` or `$1` placeholders for params.' },
            params: { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } },
          },
          required: ['sql'],
        }),
        execute: async ({ sql, params }) => {
          const answer = await this.rpc.request(
            DatabaseSubjects.query,
            principal,
            {
              id: database.id,
              body: { statements: [{ sql, params: params ?? [] }], readOnly: !writable, runId: scope.runId },
            },
            QUERY_REPLY_TIMEOUT_MS,
          );
          return this.bounded(answer.results[0] ?? null);
        },
      });
    }

    if (skills.length > 0) {
      tools[uniqueName('load_skill', names)] = tool({
        description: 'Loads the full instructions of one of your skills, by name.',
        inputSchema: jsonSchema<{ name: string }>({
          type: 'object',
          properties: { name: { type: 'string', enum: skills.map((skill) => skill.name) } },
          required: ['name'],
        }),
        execute: async ({ name }) => {
          const skill = skills.find((candidate) => candidate.name === name);
          if (!skill) throw new Error(`No skill named ${name}.`);
          return this.bounded(skill.instructions);
        },
      });
    }
    return { tools, skills, askFirst };
  }

  /**
   * Runs an app action through the events service, within the action's own time limit. An MCP
   * tool's arguments are the server's to define (a `timeoutMs` there is the tool's own), so its
   * calls take the default limit.
   */
  async runAction(principal: Principal, call: ActionCall): Promise<ActionResult> {
    const timeoutMs = isMcpToolRef(call.action) ? ACTION_DEFAULT_TIMEOUT_MS : actionTimeoutMs(call.input);
    return this.rpc.request(
      EventsSubjects.actionsExecute,
      principal,
      {
        connectionId: call.connectionId,
        action: call.action,
        input: call.input as Record<string, unknown>,
        idempotencyKey: call.idempotencyKey,
        timeoutMs,
        runId: call.runId,
      },
      timeoutMs + ACTION_ANSWER_MARGIN_MS,
    );
  }

  /** What the model is given of a tool's result: its JSON, cut at the configured length. */
  bounded(value: unknown): string {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    const max = this.config.AGENT_TOOL_RESULT_MAX_CHARS;
    return text.length <= max
      ? text
      : `${text.slice(0, max)}… (cut: the result is ${text.length} characters, ${max} are shown)`;
  }
}
