import {
  DIAGRAM_ID_MAX_LENGTH,
  DIAGRAM_MAX_BYTES,
  DIAGRAM_MAX_NODES,
  type Diagram,
  RUN_INPUT_MAX_LENGTH,
  type RunStepDto,
  type WorkflowRunDto,
} from '#contracts';

import {
  ERROR_WORKFLOW_MESSAGE_MAX_LENGTH,
  keptBytes,
  runAnswerBoundBytes,
  STEP_ERROR_MAX_LENGTH,
} from '../engine/run-limits.util.js';
import { RunnerConfig } from '../runner.config.js';
import { ANSWER_HEADROOM_BYTES, fitRunAnswer, jsonPrefix } from './run-answer.util.js';

const MIB = 1024 * 1024;
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function step(nodeId: string, fields: Partial<RunStepDto> = {}): RunStepDto {
  return {
    nodeId,
    status: 'done',
    via: [],
    input: null,
    output: null,
    error: null,
    ms: 3,
    startedAt: '2026-11-27T08:00:00.000Z',
    ...fields,
  };
}

function run(fields: Partial<WorkflowRunDto> = {}): WorkflowRunDto {
  return {
    id: '019ac0d3-8d2f-7000-8000-000000000000',
    workflowId: '019ac0d3-8d2f-7000-8000-000000000001',
    version: 1,
    trigger: 'api',
    triggerNodeId: 't',
    status: 'complete',
    createdBy: null,
    createdAt: '2026-11-27T08:00:00.000Z',
    input: '',
    reply: null,
    error: null,
    steps: [],
    diagram: { nodes: [], edges: [] },
    ...fields,
  };
}

describe('fitRunAnswer', () => {
  it('answers a run that fits as it is', () => {
    const small = run({ input: 'x', steps: [step('t', { output: { payload: 'x' } })] });
    expect(fitRunAnswer(small, 1000)).toBe(small);
  });

  it('cuts a run like the one the issue probe recorded on main (a 20 MB step input) to fit 8 MiB', () => {
    const input = 'x'.repeat(100_000);
    const stepInput = `{"match":"all","conditions":[{"left":"${'x'.repeat(20_000_000)}"}]}`;
    const probe = run({
      input,
      reply: 'true',
      steps: [step('t', { output: { payload: input } }), step('c', { via: ['e'], input: stepInput })],
    });
    const limit = 8 * MIB - ANSWER_HEADROOM_BYTES;
    const fitted = fitRunAnswer(probe, limit);
    expect(fitted).not.toBeNull();
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(limit);
    // Only the text too long to fit was cut, and says how long it was. Asserted on its ends and
    // length: a failing match would print all of it.
    const cut = fitted?.steps[1]?.input ?? '';
    expect(cut.startsWith('{"match":"all","conditions":[{"left":"xxx')).toBe(true);
    expect(cut.endsWith(`x … [cut: ${stepInput.length} characters in all]`)).toBe(true);
    expect(cut.length).toBeGreaterThan(7_000_000);
    expect({ ...fitted, steps: fitted?.steps.map((one) => ({ ...one, input: null })) }).toEqual({
      ...probe,
      steps: probe.steps.map((one) => ({ ...one, input: null })),
    });
  });

  it('cuts the longest texts to one length, and leaves the short ones', () => {
    const texts = ['a'.repeat(50_000), 'b'.repeat(40_000), 'c'.repeat(1_000)];
    const large = run({
      steps: texts.map((text, index) => step(`s${index}`, { output: { result: text } })),
    });
    const fitted = fitRunAnswer(large, 60_000);
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(60_000);
    const results = fitted?.steps.map((one) => one.output?.result ?? '');
    expect(results?.[2]).toBe(texts[2]);
    // Both long texts cut at the same length (their notes differ by nothing but the count).
    expect(results?.[0]?.indexOf(' … [cut: 50000')).toBe(results?.[1]?.indexOf(' … [cut: 40000'));
  });

  it('answers null when even every text cut to nothing would not fit', () => {
    const diagram: Diagram = { nodes: [], edges: [], layout: 'x'.repeat(10_000) };
    expect(fitRunAnswer(run({ diagram, input: 'y'.repeat(10_000) }), 5_000)).toBeNull();
  });
});

describe('jsonPrefix', () => {
  it('counts escapes and UTF-8 as JSON does, and never cuts a surrogate pair in two', () => {
    expect(jsonPrefix('ab"c', 3)).toBe('ab');
    expect(jsonPrefix('ab"c', 4)).toBe('ab"');
    expect(jsonPrefix('\u0001\n', 7)).toBe('\u0001');
    expect(jsonPrefix('é😀', 5)).toBe('é');
    expect(jsonPrefix('é😀', 6)).toBe('é😀');
    expect(jsonPrefix('\ud800x', 6)).toBe('\ud800');
  });
});

describe('runAnswerBoundBytes', () => {
  it('keeps the largest run the default limits allow within one 8 MiB message, which a run built to them confirms', () => {
    const limits = new RunnerConfig().runLimits;
    const bound = runAnswerBoundBytes(limits);
    expect(bound).toBeLessThanOrEqual(8 * MIB - ANSWER_HEADROOM_BYTES);

    // Control characters are six bytes of JSON each: the most text can weigh.
    const heavy = (length: number) => '\u0001'.repeat(length);
    const ids = ['t', ...Array.from({ length: DIAGRAM_MAX_NODES - 1 }, (_, index) => `${index}${heavy(70)}`)];
    const nodes = ids.map((id) => ({ id, data: { type: 'condition', properties: {} } }));
    const edges = ids
      .slice(1)
      .map((id, index) => ({ id: `e${index}`, source: ids[0] as string, target: id }));
    const unpadded: Diagram = { nodes, edges, layout: '' };
    const diagram: Diagram = { ...unpadded, layout: 'x'.repeat(DIAGRAM_MAX_BYTES - jsonBytes(unpadded)) };
    expect(jsonBytes(diagram)).toBe(DIAGRAM_MAX_BYTES);

    const input = heavy(RUN_INPUT_MAX_LENGTH);
    const steps: RunStepDto[] = [step(ids[0] as string, { output: { payload: input } })];
    let kept = keptBytes({ input: null, output: { payload: input }, error: null }, null);
    const share = Math.floor((limits.runDataMaxBytes - kept) / (DIAGRAM_MAX_NODES - 1));
    for (const [index, id] of ids.slice(1).entries()) {
      const text = heavy(Math.floor((share - 2) / 6));
      kept += keptBytes({ input: text, output: null, error: null }, null);
      steps.push(step(id, { via: [`e${index}`], input: text, ms: 2 ** 31 - 1 }));
    }
    expect(kept).toBeLessThanOrEqual(limits.runDataMaxBytes);
    const largest = run({
      status: 'errored',
      triggerNodeId: ids[0] as string,
      input,
      error: heavy(STEP_ERROR_MAX_LENGTH),
      steps,
      diagram,
      errorWorkflow: {
        workflowId: heavy(DIAGRAM_ID_MAX_LENGTH),
        runId: null,
        error: { code: 'service_unavailable', message: heavy(ERROR_WORKFLOW_MESSAGE_MAX_LENGTH) },
        at: new Date().toISOString(),
      },
    });
    const answer = jsonBytes({ ok: true, data: largest });
    expect(answer).toBeGreaterThan(7_000_000);
    expect(answer).toBeLessThanOrEqual(bound);
  });
});
