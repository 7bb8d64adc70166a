import { type Condition, CONDITION_OPERATORS, type ConditionOperator } from '#contracts';
import { Injectable } from '@nestjs/common';

import { evaluateConditions, type RenderedCondition } from './condition.util.js';
import { type NodeExecutor, type PreparedStep, type StepContext, StepFailure } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';

function isOperator(value: unknown): value is ConditionOperator {
  return (CONDITION_OPERATORS as readonly unknown[]).includes(value);
}

/** Tests its conditions and fires only its `true` or only its `false` edges. */
@Injectable()
@NodeExecutorProvider()
export class ConditionExecutor implements NodeExecutor {
  readonly type = 'condition';
  readonly pure = true;
  readonly textField = 'result';

  prepare(context: StepContext): PreparedStep {
    const { conditions, match } = context.properties as { conditions?: unknown; match?: unknown };
    if (!Array.isArray(conditions)) throw new StepFailure('conditions must be a list of conditions.');
    const rendered: RenderedCondition[] = (conditions as Partial<Condition>[]).map((condition, index) => {
      if (!isOperator(condition.operator)) {
        throw new StepFailure(`condition ${index + 1} has no known operator.`);
      }
      return {
        left: context.render(String(condition.left ?? ''), `conditions[${index}].left`),
        operator: condition.operator,
        right: context.render(String(condition.right ?? ''), `conditions[${index}].right`),
      };
    });
    const mode = match === 'any' ? 'any' : 'all';
    return {
      input: JSON.stringify({ match: mode, conditions: rendered }),
      run: () => {
        let result: string;
        try {
          result = String(evaluateConditions(rendered, mode));
        } catch (error) {
          // The run's error is the step's message: it has to say which node failed.
          if (!(error instanceof StepFailure)) throw error;
          throw new StepFailure(`Node "${context.node.id}": ${error.message}`);
        }
        return Promise.resolve({ status: 'done', output: { result }, route: result });
      },
    };
  }
}
