import { DomainException } from '#common';
import {
  AGENT_STEP_TIMEOUT_MS,
  type AgentStepRequest,
  type AgentStepResult,
  type MountedSkill,
  type Principal,
} from '#contracts';
import { isId } from '#persistence';
import { Injectable } from '@nestjs/common';
import {
  APICallError,
  generateText,
  InvalidResponseDataError,
  JSONParseError,
  type ModelMessage,
  RetryError,
  stepCountIs,
  TypeValidationError,
} from 'ai';

import { AgentConfig } from '../agent.config.js';
import type { AgentEntity } from '../agents/agent.entity.js';
import { AgentRepository } from '../agents/agent.repository.js';
import { ThreadRepository } from '../threads/thread.repository.js';
import { AgentTools, toolLines } from './agent-tools.js';
import { LanguageModels } from './language-models.js';

/** Said to every agent that runs as a step: nobody is there to answer it. */
const UNATTENDED =
  'You are running unattended, as one step of an automated workflow. Nobody can answer questions: ' +
  'do what the task allows, and state any assumptions you made in your reply.';

/** Time left for the answer to travel and the thread to be saved after the model's last call. */
const SAVE_MARGIN_MS = 10_000;

/**
 * The agent's instructions, the note that nobody can answer it (for a workflow step, not for a
 * member's chat, where someone can), and the list of its skills.
 */
export function systemPromptOf(
  agent: Pick<AgentEntity, 'instructions'>,
  skills: MountedSkill[] = [],
  { unattended = true }: { unattended?: boolean } = {},
): string {
  const listed =
    skills.length === 0
      ? ''
      : `Your skills (load one with load_skill before you use it):\n${skills
          .map((skill) => `- ${skill.name}: ${skill.description}`)
          .join('\n')}`;
  return [agent.instructions, unattended ? UNATTENDED : '', listed].filter(Boolean).join('\n\n');
}

/** The thinking level as the provider's reasoning effort; `off` sends none. */
export function reasoningOptions(agent: Pick<AgentEntity, 'provider' | 'thinkingLevel'>) {
  return agent.thinkingLevel === 'off'
    ? {}
    : { [LanguageModels.optionsKey(agent.provider)]: { reasoningEffort: agent.thinkingLevel } };
}

/** What went wrong with the model, in words a workflow's author can act on. */
export function explainModelFailure(error: unknown, timeoutMs: number): DomainException {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause) && cause.statusCode !== undefined && cause.statusCode < 300) {
    return new DomainException(
      'service_unavailable',
      'The model provider answered something that is not a chat completion.',
    );
  }
  if (APICallError.isInstance(cause)) {
    return new DomainException(
      'service_unavailable',
      cause.statusCode === undefined
        ? `The model provider could not be reached at ${cause.url}: ${cause.message}`
        : `The model provider refused the call (${cause.statusCode}): ${cause.message}`,
    );
  }
  if (
    JSONParseError.isInstance(cause) ||
    TypeValidationError.isInstance(cause) ||
    InvalidResponseDataError.isInstance(cause)
  ) {
    return new DomainException(
      'service_unavailable',
      'The model provider answered something that is not a chat completion.',
    );
  }
  const name = (cause as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new DomainException('service_unavailable', `The model did not answer within ${timeoutMs} ms.`);
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new DomainException('service_unavailable', `The model call failed: ${message}`);
}

/**
 * One Agent step: the agent answers the task unattended, within a bounded number of model calls each
 * with its own time limit, and the conversation is kept as a new thread titled after the run.
 */
@Injectable()
export class AgentSteps {
  constructor(
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
    private readonly models: LanguageModels,
    private readonly config: AgentConfig,
    private readonly tools: AgentTools,
  ) {}

  async run(principal: Principal, request: AgentStepRequest): Promise<AgentStepResult> {
    const agent = isId(request.agentId)
      ? await this.agents.find(principal.organizationId, request.agentId)
      : null;
    if (!agent) throw DomainException.notFound('agent', request.agentId);
    const model = this.models.modelFor(agent.provider, agent.model);
    const { tools, skills } = await this.tools.forStep(agent, {
      principal,
      runId: request.runId,
      nodeId: request.nodeId,
    });
    const messages: ModelMessage[] = [{ role: 'user', content: request.task }];
    const stepMs = this.config.AGENT_MODEL_TIMEOUT_MS;
    let answer: Awaited<ReturnType<typeof generateText>>;
    try {
      answer = await generateText({
        model,
        system: systemPromptOf(agent, skills),
        tools,
        messages,
        stopWhen: stepCountIs(this.config.AGENT_MAX_STEPS),
        maxRetries: 1,
        timeout: { totalMs: AGENT_STEP_TIMEOUT_MS - SAVE_MARGIN_MS, stepMs },
        providerOptions: reasoningOptions(agent),
      });
    } catch (error) {
      throw explainModelFailure(error, stepMs);
    }
    const thread = await this.threads.create(
      {
        organizationId: principal.organizationId,
        agentId: agent.id,
        title: `${request.workflowName} · run ${request.runId}`,
        runId: request.runId,
      },
      [...messages, ...answer.response.messages],
    );
    return { response: answer.text, thread, tools: toolLines(answer.steps), approvals: '[]' };
  }
}
