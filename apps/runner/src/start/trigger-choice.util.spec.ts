import type { DomainException } from '#common';
import type { Diagram } from '#contracts';

import { chooseTrigger } from './trigger-choice.util.js';

const diagram = (...triggers: Array<[string, string?]>): Diagram => ({
  nodes: [
    ...triggers.map(([id, label]) => ({
      id,
      data: { type: 'trigger', properties: { kind: 'api', ...(label ? { label } : {}) } },
    })),
    { id: 'c', data: { type: 'condition', properties: {} } },
  ],
  edges: [],
});

function refusal(run: () => unknown): DomainException {
  try {
    run();
  } catch (error) {
    return error as DomainException;
  }
  throw new Error('expected a refusal');
}

describe('chooseTrigger', () => {
  it('takes the only trigger when none is named', () => {
    expect(chooseTrigger(diagram(['t']), undefined).id).toBe('t');
  });

  it('takes the named trigger', () => {
    expect(chooseTrigger(diagram(['a'], ['b']), 'b').id).toBe('b');
  });

  it('asks for a choice among several, listing ids and labels', () => {
    const error = refusal(() => chooseTrigger(diagram(['a', 'Webhook'], ['b']), undefined));
    expect(error.code).toBe('trigger_required');
    expect(error.details).toEqual({
      triggers: [
        { id: 'a', label: 'Webhook' },
        { id: 'b', label: null },
      ],
    });
  });

  it('refuses a node that is not a trigger', () => {
    const error = refusal(() => chooseTrigger(diagram(['a']), 'c'));
    expect(error.code).toBe('trigger_required');
    expect(error.details).toEqual({ triggers: [{ id: 'a', label: null }] });
  });
});
