import type { DomainException } from '#common';
import type { Diagram } from '#contracts';

import { chooseTrigger, errorWorkflowTrigger } from './trigger-choice.util.js';

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

describe('errorWorkflowTrigger', () => {
  const kinds = (...triggers: Array<[string, string]>): Diagram => ({
    nodes: triggers.map(([id, kind]) => ({ id, data: { type: 'trigger', properties: { kind } } })),
    edges: [],
  });

  it('takes the only trigger, of any kind', () => {
    expect(errorWorkflowTrigger(kinds(['s', 'schedule'])).id).toBe('s');
  });

  it('takes the first manual trigger of several', () => {
    expect(errorWorkflowTrigger(kinds(['s', 'schedule'], ['m1', 'manual'], ['m2', 'manual'])).id).toBe('m1');
  });

  it('refuses several triggers none of which is manual, listing them', () => {
    const error = refusal(() => errorWorkflowTrigger(kinds(['s', 'schedule'], ['a', 'api'])));
    expect(error.code).toBe('trigger_required');
    expect(error.message).toContain('none of kind manual');
    expect(error.details).toEqual({
      triggers: [
        { id: 's', label: null },
        { id: 'a', label: null },
      ],
    });
  });
});
