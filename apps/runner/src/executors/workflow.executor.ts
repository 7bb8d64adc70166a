import { DomainException } from '#common';
import { WORKFLOW_NODE_DEFAULT_INPUT } from '#contracts';
import { Injectable } from '@nestjs/common';

import { ChildRuns, childWaitUntil } from '../children/child-runs.service.js';
import {
  type NodeExecutor,
  type PreparedStep,
  type StepContext,
  StepFailure,
  type StepResult,
} from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';

/** What a step waiting for its child keeps: the child, and how often it looked at it. */
interface WorkflowWaitState {
  runId: string;
  checks: number;
}

/**
 * Calls another workflow (docs/workflows.md, "Call a workflow"): its live version runs as a child
 * run of this step, for the run's principal and counted against the plan. With `wait` (default) the
 * step waits, holding no process, until the child ends: the child's end wakes it
 * (`ChildWakes`), and its fallback wake time has it look anyway should that wake be lost. A child
 * that completes gives the step its reply; one that ends `errored` or `terminated` fails the step
 * with its error and run id. Without `wait` the step is done once the child is recorded.
 */
@Injectable()
@NodeExecutorProvider()
export class WorkflowExecutor implements NodeExecutor {
  readonly type = 'workflow';
  readonly pure = false;
  readonly textField = 'reply';

  constructor(private readonly children: ChildRuns) {}

  prepare(context: StepContext): PreparedStep {
    const { workflowId, input, wait } = context.properties as {
      workflowId?: unknown;
      input?: unknown;
      wait?: unknown;
    };
    if (typeof workflowId !== 'string' || workflowId === '') {
      throw new StepFailure(`Node "${context.node.id}": workflowId must be a workflow id.`);
    }
    if (input !== undefined && typeof input !== 'string') {
      throw new StepFailure(`Node "${context.node.id}": input must be text.`);
    }
    if (wait !== undefined && typeof wait !== 'boolean') {
      throw new StepFailure(`Node "${context.node.id}": wait must be true or false.`);
    }
    const waits = wait ?? true;
    const childInput = context.render(input ?? WORKFLOW_NODE_DEFAULT_INPUT, 'input');
    const waiting = context.state as Partial<WorkflowWaitState> | null;
    return {
      input: JSON.stringify({ workflowId, input: childInput, wait: waits }),
      run: async () => {
        if (typeof waiting?.runId === 'string') {
          return this.look(context, workflowId, waiting.runId, (waiting.checks ?? 0) + 1);
        }
        let started: { runId: string; status: string };
        try {
          started = await this.children.startWorkflow(context, workflowId, childInput);
        } catch (error) {
          if (error instanceof DomainException) {
            throw new StepFailure(
              `Node "${context.node.id}": the workflow ${workflowId} could not be started: ${error.message}`,
            );
          }
          throw error;
        }
        if (!waits) return { status: 'done', output: { runId: started.runId, status: started.status } };
        // A step run again after a crash may find its child ended already.
        return this.look(context, workflowId, started.runId, 0);
      },
    };
  }

  /** The child as it stands: its reply once complete, its failure as the step's, else wait for it. */
  private async look(
    context: StepContext,
    workflowId: string,
    runId: string,
    checks: number,
  ): Promise<StepResult> {
    const child = await this.children.child(context, runId);
    if (!child) {
      throw new StepFailure(`Node "${context.node.id}": its child run ${runId} is no longer there.`);
    }
    switch (child.status) {
      case 'complete':
        return { status: 'done', output: { runId, status: child.status, reply: child.reply ?? '' } };
      case 'errored':
      case 'terminated':
        throw new StepFailure(
          `Node "${context.node.id}": the run ${runId} of workflow ${workflowId} ended ${child.status}: ${child.error ?? 'no error was recorded'}`,
        );
      case 'queued':
      case 'running':
      case 'waiting':
      case 'paused':
      case 'waitingForPause':
      case 'rollingBack': {
        const state: WorkflowWaitState = { runId, checks };
        // The child's id only: its status would be out of date as soon as it moved on.
        return { status: 'waiting', until: childWaitUntil(context.now(), checks), state, output: { runId } };
      }
    }
  }
}
