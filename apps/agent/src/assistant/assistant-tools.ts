import {
  ACTION_INPUT_SCHEMAS,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  INTEGRATIONS,
  isIntegrationId,
  isNodeType,
  NODE_TYPE_SCHEMAS,
  NODE_TYPES,
  type Principal,
  type ProposalVerdict,
  QUERY_REPLY_TIMEOUT_MS,
  RunnerSubjects,
  type WorkflowProposal,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';
import { type JSONSchema7, jsonSchema, tool, type ToolSet } from 'ai';

import { AgentConfig } from '../agent.config.js';
import { AgentRepository } from '../agents/agent.repository.js';
import { AgentTools } from '../steps/agent-tools.js';

/** What the assistant reads of a list: enough to pick from, never a whole organization's data at once. */
export const ASSISTANT_LIST_MAX = 100;

/** Issues given back for one proposal; a diagram with more has the first ones fixed first. */
const ISSUES_MAX = 50;

/** The columns of a database's tables, as its own DuckDB catalog lists them. */
const COLUMNS_SQL = `SELECT table_name, column_name, data_type FROM information_schema.columns
  WHERE table_schema = 'main' ORDER BY table_name, ordinal_position LIMIT 2000`;

/** What one turn of the assistant works on. */
export interface AssistantScope {
  principal: Principal;
  /** The workflow whose draft a proposal would replace; undefined for a new workflow. */
  workflowId?: string;
}

/** The proposals of one turn, as the tool answered them. */
export interface ProposalLog {
  proposals: Array<{ name: string; verdict: ProposalVerdict }>;
}

const objectSchema = <T>(properties: Record<string, JSONSchema7>, required: string[] = []) =>
  jsonSchema<T>({ type: 'object', properties, required, additionalProperties: false });

/**
 * The assistant's tools: reads of the organization (node types, agents, databases, connections,
 * skills, a workflow, a run) and one tool that proposes a workflow, checked by the publish rules.
 * None writes, runs, calls an app or queries a database's rows.
 */
@Injectable()
export class AssistantTools {
  constructor(
    private readonly rpc: RpcClient,
    private readonly agents: AgentRepository,
    private readonly config: AgentConfig,
    private readonly agentTools: AgentTools,
  ) {}

  forTurn(scope: AssistantScope, log: ProposalLog): ToolSet {
    const { principal } = scope;
    // Whole when it fits, so the console reads it as JSON; else the text cut as an Agent step's is.
    const bounded = (value: unknown) =>
      (JSON.stringify(value)?.length ?? 0) <= this.config.AGENT_TOOL_RESULT_MAX_CHARS
        ? value
        : this.agentTools.bounded(value);
    const maxInvalid = this.config.ASSISTANT_MAX_INVALID_PROPOSALS;
    return {
      list_node_types: tool({
        description:
          'Lists the node types a workflow diagram may use, each with what it does. Read a type’s properties with get_node_type.',
        inputSchema: objectSchema<Record<string, never>>({}),
        execute: () =>
          Promise.resolve(
            NODE_TYPES.map((type) => ({
              type,
              description: (NODE_TYPE_SCHEMAS[type] as { description?: string }).description ?? '',
            })),
          ),
      }),
      get_node_type: tool({
        description:
          'The JSON schema of a node type’s `data.properties`: the schema publish checks the node with.',
        inputSchema: objectSchema<{ type: string }>({ type: { type: 'string', enum: [...NODE_TYPES] } }, [
          'type',
        ]),
        execute: ({ type }) =>
          Promise.resolve(isNodeType(type) ? NODE_TYPE_SCHEMAS[type] : { error: `No node type ${type}.` }),
      }),
      list_agents: tool({
        description: 'The organization’s agents (id, name, description, model), for Agent nodes’ `agentId`.',
        inputSchema: objectSchema<Record<string, never>>({}),
        execute: async () => {
          const page = await this.agents.list(principal.organizationId, { limit: ASSISTANT_LIST_MAX });
          return bounded(
            page.data.map((agent) => ({
              id: agent.id,
              name: agent.name,
              description: agent.description,
              provider: agent.provider,
              model: agent.model,
            })),
          );
        },
      }),
      list_databases: tool({
        description: 'The organization’s SQL databases (id, name, description), for Database nodes.',
        inputSchema: objectSchema<Record<string, never>>({}),
        execute: async () => {
          const page = await this.rpc.request(DatabaseSubjects.list, principal, {
            limit: ASSISTANT_LIST_MAX,
          });
          return bounded(page.data.map(({ id, name, description }) => ({ id, name, description })));
        },
      }),
      get_database: tool({
        description:
          'The tables of one database and their columns (names and types; never its rows), to write its SQL.',
        inputSchema: objectSchema<{ id: string }>({ id: { type: 'string' } }, ['id']),
        execute: async ({ id }) => {
          const answer = await this.rpc.request(
            DatabaseSubjects.query,
            principal,
            { id, body: { statements: [{ sql: COLUMNS_SQL, params: [] }], readOnly: true } },
            QUERY_REPLY_TIMEOUT_MS,
          );
          const rows = (answer.results[0]?.rows ?? []) as unknown[][];
          const tables = new Map<string, string[]>();
          for (const [table, column, type] of rows) {
            const columns = tables.get(String(table)) ?? [];
            columns.push(`${String(column)} ${String(type)}`);
            tables.set(String(table), columns);
          }
          return bounded([...tables].map(([table, columns]) => ({ table, columns })));
        },
      }),
      list_connections: tool({
        description:
          'The organization’s app connections (id, name, app) with the actions (`<app>__<action>`, for Action nodes) and triggers (`<app>/<trigger>`, for event triggers) each offers.',
        inputSchema: objectSchema<Record<string, never>>({}),
        execute: async () => {
          const page = await this.rpc.request(EventsSubjects.connectionsList, principal, {
            limit: ASSISTANT_LIST_MAX,
          });
          return bounded(
            page.data.map(({ id, name, integrationId, health }) => {
              const integration = isIntegrationId(integrationId) ? INTEGRATIONS[integrationId] : null;
              return {
                id,
                name,
                app: integrationId,
                health,
                actions: (integration?.actions ?? []).map((action) => {
                  const ref = `${integrationId}__${action}`;
                  return { ref, description: ACTION_INPUT_SCHEMAS[ref]?.description ?? '' };
                }),
                triggers: (integration?.triggers ?? []).map((trigger) => `${integrationId}/${trigger}`),
              };
            }),
          );
        },
      }),
      get_action: tool({
        description:
          'The JSON schema of an action’s input (`<app>__<action>`), for an Action node’s `input`.',
        inputSchema: objectSchema<{ ref: string }>({ ref: { type: 'string' } }, ['ref']),
        execute: ({ ref }) =>
          Promise.resolve(
            Object.hasOwn(ACTION_INPUT_SCHEMAS, ref)
              ? ACTION_INPUT_SCHEMAS[ref]
              : { error: `No action ${ref}.` },
          ),
      }),
      list_skills: tool({
        description: 'The organization’s skills (id, name, description), which agents can be given.',
        inputSchema: objectSchema<Record<string, never>>({}),
        execute: async () => {
          const page = await this.rpc.request(CatalogSubjects.skillsList, principal, {
            limit: ASSISTANT_LIST_MAX,
          });
          return bounded(page.data.map(({ id, name, description }) => ({ id, name, description })));
        },
      }),
      get_workflow: tool({
        description:
          'A workflow of the organization: its name, description, live version and current draft diagram. Without an id, the workflow being edited.',
        inputSchema: objectSchema<{ id?: string }>({ id: { type: 'string' } }),
        execute: async ({ id }) => {
          const workflowId = id ?? scope.workflowId;
          if (!workflowId)
            return { error: 'No workflow is being edited: this conversation drafts a new one.' };
          const workflow = await this.rpc.request(WorkflowSubjects.get, principal, { id: workflowId });
          const { name, description, publishedVersion, pausedAt, diagram } = workflow;
          return bounded({
            id: workflowId,
            name,
            description,
            publishedVersion,
            paused: pausedAt !== null,
            diagram,
          });
        },
      }),
      get_run: tool({
        description:
          'A run of a workflow with its steps (status, error, input and output of each), and the diagram it ran.',
        inputSchema: objectSchema<{ id: string }>({ id: { type: 'string' } }, ['id']),
        execute: async ({ id }) => {
          const run = await this.rpc.request(RunnerSubjects.runsGet, principal, { id });
          return bounded({
            id: run.id,
            workflowId: run.workflowId,
            status: run.status,
            error: run.error,
            input: run.input,
            steps: run.steps.map((step) => ({
              nodeId: step.nodeId,
              status: step.status,
              error: step.error,
              input: step.input,
              output: step.output,
            })),
            diagram: run.diagram,
          });
        },
      }),
      propose_workflow: tool({
        description:
          'Proposes a whole workflow (a new one, or the new draft of the one being edited) to the member. The service checks it with the publish rules and answers {valid, issues, diagram}: when it is not valid, fix every issue and propose again. Nothing is saved: the member applies a valid proposal.',
        inputSchema: objectSchema<WorkflowProposal>(
          {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            diagram: {
              type: 'object',
              description:
                'The whole diagram: {nodes: [{id, position, data: {type, properties}}], edges: [...]}.',
            },
            explanation: {
              type: 'string',
              description: 'What the workflow does, for the member, in a few lines.',
            },
          },
          ['name', 'diagram', 'explanation'],
        ),
        execute: async ({ name, diagram }): Promise<ProposalVerdict> => {
          const invalid = log.proposals.filter((proposal) => !proposal.verdict.valid).length;
          if (invalid >= maxInvalid) {
            throw new Error(
              `This turn has had ${maxInvalid} proposals that would not publish; propose nothing more, tell the member what is still wrong.`,
            );
          }
          const { issues } = await this.rpc.request(WorkflowSubjects.checkDraft, principal, {
            ...(scope.workflowId ? { workflowId: scope.workflowId } : {}),
            diagram,
          });
          const verdict = { valid: issues.length === 0, issues: issues.slice(0, ISSUES_MAX), diagram };
          log.proposals.push({ name, verdict });
          return verdict;
        },
      }),
    };
  }
}
