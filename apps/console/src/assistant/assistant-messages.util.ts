import { getToolName, isToolUIPart, type UIMessage } from 'ai';

import type { Diagram } from '../editor/diagram';

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * What the server puts in an answer's metadata: the conversation it keeps (named at the start) and,
 * with the finish, the whole turn's tokens.
 */
export interface AssistantMetadata {
  conversationId?: string;
  usage?: TurnUsage;
}

export type AssistantMessage = UIMessage<AssistantMetadata>;
export type AssistantPart = AssistantMessage['parts'][number];

export interface ProposalIssue {
  path: string;
  message: string;
  nodeId?: string;
  edgeId?: string;
}

/**
 * One `propose_workflow` call of the conversation as the panel shows it. `status` is `checking`
 * until the service has answered whether it would publish, `refused` when the tool failed (too many
 * invalid proposals in a turn). `diagram` is null when what the model sent cannot be drawn.
 */
export interface Proposal {
  id: string;
  /** 1, 2, … over the whole conversation, so the member can tell proposals apart. */
  number: number;
  messageId: string;
  name: string;
  explanation: string;
  status: 'checking' | 'valid' | 'invalid' | 'refused';
  issues: ProposalIssue[];
  diagram: Diagram | null;
  error?: string;
}

/** The conversation the server keeps: the chat id the next message goes with, once an answer named it. */
export const conversationOf = (messages: AssistantMessage[]): string | undefined =>
  messages.findLast((message) => message.metadata?.conversationId)?.metadata?.conversationId;

/** The conversation's tokens so far: the sum of each turn's. */
export function totalUsage(messages: AssistantMessage[]): TurnUsage {
  return messages.reduce<TurnUsage>(
    (sum, message) => {
      const usage = message.metadata?.usage;
      return usage
        ? {
            inputTokens: sum.inputTokens + usage.inputTokens,
            outputTokens: sum.outputTokens + usage.outputTokens,
            totalTokens: sum.totalTokens + usage.totalTokens,
          }
        : sum;
    },
    { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  );
}

export const formatTokens = (usage: TurnUsage): string =>
  `${usage.totalTokens.toLocaleString()} tokens (${usage.inputTokens.toLocaleString()} in, ${usage.outputTokens.toLocaleString()} out)`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The diagram a proposal carries, when it is one the canvas can draw. It comes from the model, and an
 * invalid proposal is shown too: anything malformed is refused here rather than crashing the drawing.
 */
export function asDiagram(value: unknown): Diagram | null {
  if (!isRecord(value) || !Array.isArray(value.nodes) || !Array.isArray(value.edges)) return null;
  const nodesOk = value.nodes.every(
    (node) =>
      isRecord(node) &&
      typeof node.id === 'string' &&
      isRecord(node.data) &&
      typeof node.data.type === 'string' &&
      isRecord(node.data.properties),
  );
  const edgesOk = value.edges.every(
    (edge) =>
      isRecord(edge) &&
      typeof edge.id === 'string' &&
      typeof edge.source === 'string' &&
      typeof edge.target === 'string',
  );
  return nodesOk && edgesOk ? (value as Diagram) : null;
}

const issuesOf = (value: unknown): ProposalIssue[] =>
  Array.isArray(value)
    ? value.filter(isRecord).map((issue) => ({
        path: typeof issue.path === 'string' ? issue.path : '',
        message: typeof issue.message === 'string' ? issue.message : String(issue.message),
        ...(typeof issue.nodeId === 'string' ? { nodeId: issue.nodeId } : {}),
        ...(typeof issue.edgeId === 'string' ? { edgeId: issue.edgeId } : {}),
      }))
    : [];

/** The tool parts of an answer: `tool-<name>` for the server's tools. */
export const isToolPart = (part: AssistantPart): part is Extract<AssistantPart, { toolCallId: string }> =>
  isToolUIPart(part);

/** Every proposal of the conversation, numbered in order. */
export function proposalsOf(messages: AssistantMessage[]): Proposal[] {
  const proposals: Proposal[] = [];
  for (const message of messages) {
    for (const part of message.parts) {
      if (!isToolPart(part) || getToolName(part) !== 'propose_workflow') continue;
      const input = isRecord(part.input) ? part.input : {};
      const output = part.state === 'output-available' && isRecord(part.output) ? part.output : null;
      const status: Proposal['status'] =
        part.state === 'output-error'
          ? 'refused'
          : output
            ? output.valid === true
              ? 'valid'
              : 'invalid'
            : 'checking';
      proposals.push({
        id: part.toolCallId,
        number: proposals.length + 1,
        messageId: message.id,
        name: typeof input.name === 'string' && input.name !== '' ? input.name : 'Untitled workflow',
        explanation: typeof input.explanation === 'string' ? input.explanation : '',
        status,
        issues: output ? issuesOf(output.issues) : [],
        // The checked diagram once the service answered, what the model is sending until then.
        diagram: asDiagram(output ? output.diagram : input.diagram),
        ...(part.state === 'output-error' ? { error: part.errorText } : {}),
      });
    }
  }
  return proposals;
}

/**
 * The proposal the panel offers: of the newest answer with a checked proposal, its last valid one
 * (the model usually fixes an invalid proposal in the same turn), else its last one, shown as not
 * valid.
 */
export function offeredProposal(proposals: Proposal[]): Proposal | undefined {
  const checked = proposals.filter((proposal) => proposal.status !== 'checking');
  const newest = checked.at(-1);
  if (!newest) return undefined;
  const ofTurn = checked.filter((proposal) => proposal.messageId === newest.messageId);
  return ofTurn.findLast((proposal) => proposal.status === 'valid') ?? newest;
}

/** What a read tool reads, for the discreet line the panel shows instead of its output. */
function readWhat(name: string, input: unknown): string {
  const args = isRecord(input) ? input : {};
  switch (name) {
    case 'list_node_types':
      return 'the node types';
    case 'get_node_type':
      return typeof args.type === 'string' ? `the ${args.type} node type` : 'a node type';
    case 'list_agents':
      return 'the agents';
    case 'list_databases':
      return 'the databases';
    case 'get_database':
      return "a database's tables";
    case 'list_connections':
      return 'the connections';
    case 'get_action':
      return typeof args.ref === 'string' ? `the action ${args.ref}` : 'an action';
    case 'list_skills':
      return 'the skills';
    case 'get_workflow':
      return 'the workflow';
    case 'get_run':
      return 'the run';
    default:
      return name.replace(/_/g, ' ');
  }
}

/** "Reading the agents…", "Read the agents", or what went wrong: never the tool's raw output. */
export function toolLine(part: Extract<AssistantPart, { toolCallId: string }>): string {
  const what = readWhat(getToolName(part), part.input);
  switch (part.state) {
    case 'output-available':
      return `Read ${what}`;
    case 'output-error':
      return `Could not read ${what}: ${part.errorText}`;
    case 'output-denied':
      return `Did not read ${what}`;
    case 'input-streaming':
    case 'input-available':
    case 'approval-requested':
    case 'approval-responded':
      return `Reading ${what}…`;
  }
}
