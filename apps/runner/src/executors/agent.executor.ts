import { DomainException } from '#common';
import { AGENT_STEP_TIMEOUT_MS, AgentSubjects } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { RunnerConfig } from '../runner.config.js';
import { type NodeExecutor, type PreparedStep, type StepContext, StepFailure } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';
import { stepRequest } from './step-request.js';

/** Time for the answer to come back after the agent service's own limit. */
const ANSWER_MARGIN_MS = 10_000;

/** What a step waiting for approvals keeps: the thread to resume. */
interface AgentWaitState {
  threadId: string;
}

/**
 * Runs one of the organization's agents on the step's task, through the agent service. An empty task
 * is the text of the step before (right after the trigger, the raw input). The agent's answer is the
 * step's text, so a run that ends with it replies with it. When the agent calls ask-first actions
 * the step waits, holding no process: a decision wakes it (or the approvals' expiry does), and it
 * resumes the same thread.
 */
@Injectable()
@NodeExecutorProvider()
export class AgentExecutor implements NodeExecutor {
  readonly type = 'agent';
  readonly pure = false;
  readonly textField = 'response';

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: RunnerConfig,
  ) {}

  /** A step that keeps a thread waits for the decisions on its ask-first calls. */
  awaitsDecision(state: unknown): boolean {
    return typeof (state as Partial<AgentWaitState> | null)?.threadId === 'string';
  }

  prepare(context: StepContext): PreparedStep {
    const { agentId, task } = context.properties as { agentId?: unknown; task?: unknown };
    if (typeof agentId !== 'string' || agentId === '') throw new StepFailure('agentId must be an agent id.');
    if (task !== undefined && typeof task !== 'string') throw new StepFailure('task must be text.');
    const rendered = task ? context.render(task, 'task') : context.previousText;
    const resumed = context.state as Partial<AgentWaitState> | null;
    const request = {
      agentId: context.render(agentId, 'agentId'),
      task: rendered,
      runId: context.run.id,
      nodeId: context.node.id,
      workflowId: context.run.workflowId,
      workflowName: context.run.workflowName.slice(0, 200),
      ...(typeof resumed?.threadId === 'string' ? { threadId: resumed.threadId } : {}),
      ...(context.interrupted ? { interrupted: true } : {}),
    };
    return {
      input: JSON.stringify({ agentId: request.agentId, task: request.task }),
      run: async () => {
        try {
          // A re-run after the agent service died mid-step is told so, as after a runner crash.
          const result = await stepRequest(
            this.rpc,
            AgentSubjects.stepsRun,
            context,
            (rerun) => (rerun ? { ...request, interrupted: true } : request),
            {
              timeoutMs: AGENT_STEP_TIMEOUT_MS + ANSWER_MARGIN_MS,
              patienceMs: this.config.STEP_UNAVAILABLE_WAIT_MS,
            },
          );
          if (result.status === 'done') return { status: 'done', output: { ...result.output } };
          const state: AgentWaitState = { threadId: result.threadId };
          return { status: 'waiting', until: new Date(result.until), state, output: { ...result.output } };
        } catch (error) {
          if (error instanceof DomainException) throw new StepFailure(error.message);
          throw error;
        }
      },
    };
  }
}
