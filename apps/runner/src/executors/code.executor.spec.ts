import { loadConfig } from '#common';
import { runInSandbox } from '#sandbox';

import { RunnerConfig } from '../runner.config.js';
import type { TemplateScope } from '../templates/template.util.js';
import { codeFailure, CodeExecutor } from './code.executor.js';
import type { CodeWorkers } from './code-workers.js';
import type { StepContext } from './node-executor.js';

const config = loadConfig(RunnerConfig, { CODE_TIMEOUT_MS: '500', CODE_MEMORY_MB: '16' });
// The sandbox on the test's own thread: the pool's workers are the built code.worker.js.
const executor = new CodeExecutor(config, { run: runInSandbox } as unknown as CodeWorkers);

function context(
  properties: Record<string, unknown>,
  scope: TemplateScope,
  nodeIds = [...(scope.outputs as ReadonlyMap<string, unknown>).keys()],
): StepContext {
  return {
    node: { id: 'shape', data: { type: 'code', properties } },
    properties,
    scope,
    run: { nodeIds },
    signal: new AbortController().signal,
  } as unknown as StepContext;
}

const query = {
  rows: JSON.stringify([
    { email: 'ada@example.com', plan: 'pro' },
    { email: 'bob@example.com', plan: 'free' },
  ]),
  rowCount: '2',
  rowsWritten: '0',
};

async function resultOf(code: string, scope: TemplateScope, extra: Record<string, unknown> = {}) {
  return executor.prepare(context({ code, ...extra }, scope)).run();
}

describe('CodeExecutor', () => {
  it('reads the input and the earlier steps, their JSON fields parsed, and returns JSON as `result`', async () => {
    const scope = { input: '{"plan": "pro"}', outputs: new Map([['query', query]]) };
    const code = [
      'const wanted = trigger.plan;',
      'return {',
      '  emails: nodes.query.rows.filter((row) => row.plan === wanted).map((row) => row.email),',
      '  count: nodes.query.rowCount + 1,',
      '  loop: typeof loop,',
      '};',
    ].join('\n');
    expect(await resultOf(code, scope)).toEqual({
      status: 'done',
      output: { result: '{"emails":["ada@example.com"],"count":3,"loop":"undefined"}' },
    });
  });

  it('hands text that is not JSON over as the string', async () => {
    const scope = { input: 'hello there', outputs: new Map([['agent', { response: 'All {good}' }]]) };
    expect(await resultOf('return [trigger, nodes.agent.response, Object.keys(nodes)];', scope)).toEqual({
      status: 'done',
      output: { result: '["hello there","All {good}",["agent"]]' },
    });
  });

  it('reads only the steps that are done, and in a loop iteration its item and index', async () => {
    const outputs = new Map<string, Record<string, string>>([
      ['query', query],
      ['each', { item: '{"email": "ada@example.com"}', index: '3' }],
    ]);
    const scope = { input: '', outputs, loopNodeId: 'each' } as TemplateScope;
    expect(
      await executor
        .prepare(
          context({ code: 'return [loop.item.email, loop.index, Object.keys(nodes)];' }, scope, [
            'trigger',
            'query',
            'each',
            'shape',
            'later',
          ]),
        )
        .run(),
    ).toEqual({ status: 'done', output: { result: '["ada@example.com",3,["query","each"]]' } });
  });

  it('reads a node whose id is a name objects give a meaning to as any other', async () => {
    const scope = { input: '', outputs: new Map([['__proto__', { result: 'true' }]]) };
    expect(await resultOf('return [nodes.__proto__.result, Object.keys(nodes)];', scope)).toEqual({
      status: 'done',
      output: { result: '[true,["__proto__"]]' },
    });
  });

  it('strips the types of TypeScript', async () => {
    const scope = { input: '{"n": 2}', outputs: new Map() };
    expect(
      await resultOf('const n: number = trigger.n;\nreturn n * 2;', scope, { language: 'typescript' }),
    ).toEqual({ status: 'done', output: { result: '4' } });
  });

  it('records its language and caps as its input, the node defaults applied', () => {
    const scope = { input: '', outputs: new Map() };
    expect(executor.prepare(context({ code: 'return 1;' }, scope)).input).toBe(
      '{"language":"javascript","timeoutMs":500,"memoryMb":16}',
    );
  });

  it('fails naming the node, what went wrong and the line', async () => {
    const scope = { input: '', outputs: new Map() };
    await expect(resultOf('const a = 1;\nthrow new RangeError("too far");', scope)).rejects.toThrow(
      'Node "shape": the code threw at line 2: RangeError: too far',
    );
    await expect(resultOf('while (true) {}', scope, { timeoutMs: 100 })).rejects.toThrow(
      'Node "shape": the code ran past its time cap of 100 ms and was stopped (timeoutMs may be up to 30000)',
    );
    await expect(resultOf('const a = []; for (;;) a.push(new Array(10000).fill(0));', scope)).rejects.toThrow(
      'Node "shape": the code needed more than its memory cap of 16 MiB and was stopped (memoryMb may be up to 256)',
    );
    await expect(resultOf('return process.env;', scope)).rejects.toThrow(
      `Node "shape": the code threw at line 1: ReferenceError: 'process' is not defined`,
    );
    await expect(resultOf('nodes.query;', scope)).rejects.toThrow(
      'Node "shape": the code returned undefined, which is not JSON: return a JSON value (null for nothing)',
    );
  });
});

describe('codeFailure', () => {
  const caps = { timeoutMs: 1000, memoryMb: 32 };

  it.each([
    [
      "the code does not compile at line 3: unexpected token in expression: ';'",
      { kind: 'syntax', message: "unexpected token in expression: ';'", line: 3 },
    ],
    [
      "the code's calls or brackets nest too deeply at line 1: the sandbox's stack overflowed",
      { kind: 'stack', message: 'calls or brackets nest too deeply', line: 1 },
    ],
    [
      'the code returned a promise that never settled: nothing in the sandbox (it has no timers or I/O) could settle it',
      { kind: 'unsettled', message: '' },
    ],
    [
      'the code sandbox failed: a code worker exited (code 1)',
      { kind: 'crashed', message: 'a code worker exited (code 1)' },
    ],
  ] as const)('words a failure as: %s', (text, failure) => {
    expect(codeFailure('n', { ok: false, ...failure }, caps)).toBe(`Node "n": ${text}`);
  });
});
