import { ConditionExecutor } from './condition.executor.js';
import { type StepContext, StepFailure } from './node-executor.js';

function context(properties: Record<string, unknown>): StepContext {
  return {
    node: { id: 'check', data: { type: 'condition', properties } },
    properties,
    render: (template: string) => template.replace('{{trigger.pattern}}', '(a)\\1'),
  } as unknown as StepContext;
}

describe('ConditionExecutor', () => {
  const executor = new ConditionExecutor();

  it('routes by the result of its conditions', async () => {
    const prepared = executor.prepare(
      context({ conditions: [{ left: 'order-7', operator: 'matches', right: '^order-\\d+$' }] }),
    );
    expect(await prepared.run()).toEqual({ status: 'done', output: { result: 'true' }, route: 'true' });
  });

  it('fails with a message naming the node, the condition and why RE2 refused the rendered pattern', () => {
    const prepared = executor.prepare(
      context({
        conditions: [
          { left: 'a', operator: 'is_not_empty' },
          { left: 'a', operator: 'matches', right: '{{trigger.pattern}}' },
        ],
      }),
    );
    // The rendered pattern is recorded as the step's input before it runs, so the error can be read beside it.
    expect(JSON.parse(prepared.input ?? '')).toMatchObject({ conditions: [{}, { right: '(a)\\1' }] });
    expect(() => prepared.run()).toThrow(StepFailure);
    expect(() => prepared.run()).toThrow(
      'Node "check": condition 2 (matches): "(a)\\1" is not a regular expression RE2 accepts: error parsing regexp: invalid escape sequence: `\\1`',
    );
  });
});
