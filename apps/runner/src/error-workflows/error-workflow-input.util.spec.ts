import { type ErrorWorkflowInput, RUN_INPUT_MAX_LENGTH, runInputLength } from '#contracts';

import { type RunRecord, type StepRecord, stepRecord } from '../engine/run-state.js';
import { cutForJson, errorWorkflowInput, prefixWithin } from './error-workflow-input.util.js';

const CREATED = new Date('2026-11-30T10:00:00.000Z');

function failedRun(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1',
    organizationId: 'org-1',
    workflowId: 'wf-1',
    workflowName: 'Orders',
    projectId: 'project-1',
    version: 3,
    trigger: 'api',
    triggerNodeId: 't',
    status: 'errored',
    createdBy: null,
    principal: { organizationId: 'org-1', userId: null, keyId: 'key-1', role: 'admin' },
    input: '{"orderId":42}',
    reply: null,
    error: 'Node "charge": the app answered 502',
    diagram: {
      nodes: [
        { id: 't', data: { type: 'trigger', properties: { kind: 'api' } } },
        { id: 'check', data: { type: 'condition', properties: {} } },
        { id: 'charge', data: { type: 'action', properties: { action: 'http__request' } } },
      ],
      edges: [],
    },
    timeZone: 'UTC',
    leaseToken: 1,
    claims: 1,
    createdAt: CREATED,
    rerunOf: null,
    rollbackEnd: null,
    traceParent: null,
    errorOfRunId: null,
    errorWorkflow: null,
    heldBy: null,
    heldKey: null,
    parentRunId: null,
    parentNodeId: null,
    iteration: null,
    depth: 0,
    diagramTrimmedAt: null,
    ...overrides,
  };
}

const step = (nodeId: string, position: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord({ nodeId, position, status: 'done', startedAt: CREATED, ...fields });

const parsed = (text: string) => JSON.parse(text) as ErrorWorkflowInput;

describe('errorWorkflowInput', () => {
  it('describes the workflow, the run, the step that failed it and the error', () => {
    const steps = [
      step('t', 0),
      step('check', 1, { status: 'error', error: 'an earlier failure that was not the one' }),
      step('charge', 2, { status: 'error', error: 'Node "charge": the app answered 502', attempt: 3 }),
    ];
    expect(parsed(errorWorkflowInput({ run: failedRun(), steps }))).toEqual({
      workflow: { id: 'wf-1', name: 'Orders', version: 3, projectId: 'project-1' },
      run: {
        id: 'run-1',
        trigger: 'api',
        triggerNodeId: 't',
        startedAt: '2026-11-30T10:00:00.000Z',
        input: '{"orderId":42}',
        inputTruncated: false,
        rolledBack: false,
      },
      failedStep: {
        nodeId: 'charge',
        type: 'action',
        error: 'Node "charge": the app answered 502',
        attempt: 3,
      },
      error: 'Node "charge": the app answered 502',
    });
  });

  it('finds the failed step of a run that rolled back, whose error goes on with its compensations', () => {
    const run = failedRun({
      diagram: { ...failedRun().diagram, settings: { onError: 'rollback' } },
      error: 'Node "charge": declined\nThe compensation of "reserve" failed: gone',
    });
    const steps = [
      step('t', 0),
      step('charge', 1, { status: 'error', error: 'Node "charge": declined' }),
      step('reserve', 2, { status: 'error', error: 'gone', compensation: true }),
    ];
    const input = parsed(errorWorkflowInput({ run, steps }));
    expect(input.run.rolledBack).toBe(true);
    expect(input.failedStep).toEqual({
      nodeId: 'charge',
      type: 'action',
      error: 'Node "charge": declined',
      attempt: 1,
    });
    expect(input.error).toBe(run.error);
  });

  it('names no step when none failed the run', () => {
    const run = failedRun({
      error: 'The run was interrupted 10 times before it could finish; it was stopped.',
    });
    expect(parsed(errorWorkflowInput({ run, steps: [step('t', 0)] })).failedStep).toBeNull();
  });

  it('gives the same text for the same failed run, so a start sent again is the same request', () => {
    const steps = [step('t', 0), step('charge', 1, { status: 'error', error: failedRun().error })];
    expect(errorWorkflowInput({ run: failedRun(), steps })).toBe(
      errorWorkflowInput({ run: failedRun(), steps: [...steps].reverse() }),
    );
  });

  it(`fits a run's input (${RUN_INPUT_MAX_LENGTH} characters) whatever the failed run held`, () => {
    // The worst a run can hold: the largest input, all control characters (six in JSON), a long
    // name and node id, and errors far longer than a step keeps.
    const worst = '\u0001'.repeat(RUN_INPUT_MAX_LENGTH);
    const nodeId = '"'.repeat(200);
    const error = '\u0002'.repeat(50_000);
    const run = failedRun({
      input: worst,
      workflowName: '\\'.repeat(100),
      error,
      triggerNodeId: nodeId,
      diagram: { nodes: [{ id: nodeId, data: { type: 'action', properties: {} } }], edges: [] },
    });
    const text = errorWorkflowInput({ run, steps: [step(nodeId, 1, { status: 'error', error })] });
    expect(runInputLength(text)).toBeLessThanOrEqual(RUN_INPUT_MAX_LENGTH);
    const input = parsed(text);
    expect(input.run.inputTruncated).toBe(true);
    expect(worst.startsWith(input.run.input)).toBe(true);
    expect(input.run.input.length).toBeGreaterThan(5_000);
    expect(input.error).toMatch(/ … \(cut: 50000 characters in all\)$/);
    expect(input.failedStep?.error).toBe(input.error);
  });

  it('keeps an input that fits whole, however close to the limit', () => {
    const run = failedRun({ input: 'x'.repeat(90_000) });
    const input = parsed(errorWorkflowInput({ run, steps: [] }));
    expect(input.run).toMatchObject({ input: run.input, inputTruncated: false });
  });
});

describe('cutting text for JSON', () => {
  it('counts escaped characters as JSON writes them and never splits a surrogate pair', () => {
    expect(prefixWithin('ab\u0001c', 3)).toBe('ab');
    expect(prefixWithin('ab\u0001c', 8)).toBe('ab\u0001');
    expect(prefixWithin('a😀b', 2)).toBe('a');
    expect(prefixWithin('a😀b', 3)).toBe('a😀');
    expect(prefixWithin('short', 100)).toBe('short');
  });

  it('cuts to the JSON length asked for, with a note of the whole length', () => {
    const cut = cutForJson('y'.repeat(1_000), 100);
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^y+ … \(cut: 1000 characters in all\)$/);
    expect(cutForJson('fits', 100)).toBe('fits');
  });
});
