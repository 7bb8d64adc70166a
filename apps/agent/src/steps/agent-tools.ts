import { DomainException } from '#common';
import {
  ACTION_ANSWER_MARGIN_MS,
  ACTION_INPUT_SCHEMAS,
  actionTimeoutMs,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  type MountedSkill,
  type Principal,
  QUERY_REPLY_TIMEOUT_MS,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';
import { type JSONSchema7, jsonSchema, type StepResult, tool, type ToolSet } from 'ai';

import { AgentConfig } from '../agent.config.js';
import type { AgentEntity } from '../agents/agent.entity.js';

/** Tool names as providers accept them: letters, digits, `_` and `-`, at most 64. */
const TOOL_NAME_MAX = 64;

export interface StepScope {
  principal: Principal;
  runId: string;
  nodeId: string;
}

export interface AgentToolbox {
  tools: ToolSet;
  skills: MountedSkill[];
}

/** `name`, or `name_2`, `name_3` … when an earlier tool took it. */
function uniqueName(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, TOOL_NAME_MAX - 3);
  let candidate = base;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${base}_${n}`;
  taken.add(candidate);
  return candidate;
}

/** One line per tool call of the step: the tool and `ok`, or the tool and its error. */
export function toolLines(steps: ReadonlyArray<StepResult<ToolSet>>): string {
  return steps
    .flatMap((step) =>
      step.content.flatMap((part) => {
        if (part.type === 'tool-result') return [`${part.toolName} ok`];
        if (part.type === 'tool-error') {
          const error = part.error instanceof Error ? part.error.message : String(part.error);
          return [`${part.toolName}: ${error}`];
        }
        return [];
      }),
    )
    .join('\n');
}

/**
 * The tools an agent's grants give it for one step: each granted app action (through the events
 * service, with its grant's connection), one SQL tool per granted database (read-only unless granted
 * writes: the database service refuses anything else), and `load_skill` for its mounted skills. What a
 * tool gives back to the model is bounded. Ask-first actions are not offered: approvals are not built.
 */
@Injectable()
export class AgentTools {
  constructor(
    private readonly rpc: RpcClient,
    private readonly config: AgentConfig,
  ) {}

  async forStep(agent: AgentEntity, scope: StepScope): Promise<AgentToolbox> {
    const { principal } = scope;
    const [skills, databases] = await Promise.all([
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
    ]);
    const tools: ToolSet = {};
    const names = new Set<string>();

    for (const grant of agent.apps) {
      for (const action of grant.actions) {
        const described = ACTION_INPUT_SCHEMAS[action];
        if (!described || grant.approvals.includes(action)) continue;
        tools[uniqueName(action, names)] = tool({
          description: `${described.description} (connection ${grant.connectionId})`,
          inputSchema: jsonSchema<Record<string, unknown>>(described.input as JSONSchema7),
          execute: async (input, { toolCallId }) => {
            const timeoutMs = actionTimeoutMs(input);
            const done = await this.rpc.request(
              EventsSubjects.actionsExecute,
              principal,
              {
                connectionId: grant.connectionId,
                action,
                input,
                idempotencyKey: `${scope.runId}:${scope.nodeId}:${toolCallId}`,
                timeoutMs,
              },
              timeoutMs + ACTION_ANSWER_MARGIN_MS,
            );
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
            { id: database.id, body: { statements: [{ sql, params: params ?? [] }], readOnly: !writable } },
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
    return { tools, skills };
  }

  /** What the model is given of a tool's result: its JSON, cut at the configured length. */
  private bounded(value: unknown): string {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    const max = this.config.AGENT_TOOL_RESULT_MAX_CHARS;
    return text.length <= max
      ? text
      : `${text.slice(0, max)}… (cut: the result is ${text.length} characters, ${max} are shown)`;
  }
}
