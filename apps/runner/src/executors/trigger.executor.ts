import { Injectable } from '@nestjs/common';

import type { NodeExecutor, PreparedStep, StepContext } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';

/** The run starts at its trigger: the step is done at once, its payload the run's input. */
@Injectable()
@NodeExecutorProvider()
export class TriggerExecutor implements NodeExecutor {
  readonly type = 'trigger';
  readonly pure = true;
  readonly textField = 'payload';

  /** The output of the trigger step a run starts with. */
  static outputFor(input: string): Record<string, string> {
    return { payload: input };
  }

  prepare(context: StepContext): PreparedStep {
    return {
      input: null,
      run: () => Promise.resolve({ status: 'done', output: TriggerExecutor.outputFor(context.run.input) }),
    };
  }
}
