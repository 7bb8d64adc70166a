import {
  CODE_LANGUAGES,
  CODE_MEMORY_MAX_MB,
  CODE_PARAMETERS,
  CODE_TIMEOUT_MAX_MS,
  type CodeLanguage,
} from '#contracts';
import type { SandboxFailure } from '#sandbox';
import { Injectable } from '@nestjs/common';

import { RunnerConfig } from '../runner.config.js';
import type { TemplateScope } from '../templates/template.util.js';
import { CodeWorkers } from './code-workers.js';
import { type NodeExecutor, type PreparedStep, type StepContext, StepFailure } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';

const MIB = 1024 * 1024;

/**
 * Run inside the sandbox before the code: turns the input (the run's input, the output fields of
 * the steps done, the loop's item and index, all as text) into the code's arguments. A text that
 * is JSON arrives parsed, any other as the string. Output fields are parsed when first read, so a
 * large output the code never reads costs it nothing but its text.
 */
const CODE_SETUP = `(input) => {
  const parse = JSON.parse;
  const value = (text) => { try { return parse(text); } catch { return text; } };
  const { trigger, nodes, loop } = parse(input);
  const steps = {};
  for (const [id, fields] of Object.entries(nodes)) {
    const step = {};
    for (const [field, text] of Object.entries(fields)) {
      let read = false;
      let parsed;
      Object.defineProperty(step, field, {
        enumerable: true,
        configurable: true,
        get: () => { if (!read) { parsed = value(text); read = true; } return parsed; },
        set: (next) => { parsed = next; read = true; },
      });
    }
    Object.defineProperty(steps, id, { value: step, enumerable: true, configurable: true, writable: true });
  }
  return [value(trigger), steps, loop === null ? undefined : { item: value(loop.item), index: value(loop.index) }];
}`;

function isLanguage(value: unknown): value is CodeLanguage {
  return (CODE_LANGUAGES as readonly unknown[]).includes(value);
}

/**
 * What the code reads, as the text the sandbox's setup parses: the run's input, every done step's
 * output fields (those of this iteration in a loop, and the ones it inherits), and in a loop
 * iteration its loop step's `item` and `index`.
 */
export function codeInput(scope: TemplateScope, nodeIds: readonly string[]): string {
  // From entries: a node may be called `__proto__`, which an assignment would not make a property.
  const nodes = Object.fromEntries(
    nodeIds.flatMap((id) => {
      const output = scope.outputs.get(id);
      return output ? [[id, output]] : [];
    }),
  );
  const { loopNodeId } = scope as TemplateScope & { loopNodeId?: string };
  const loopOutput = loopNodeId === undefined ? undefined : scope.outputs.get(loopNodeId);
  const loop = loopOutput ? { item: loopOutput.item ?? '', index: loopOutput.index ?? '' } : null;
  return JSON.stringify({ trigger: scope.input, nodes, loop });
}

/** The step's error for a failed run of its code: the node, what went wrong and where. */
export function codeFailure(
  nodeId: string,
  failure: SandboxFailure,
  caps: { timeoutMs: number; memoryMb: number },
): string {
  const at = failure.line === undefined ? '' : ` at line ${failure.line}`;
  const text = (() => {
    switch (failure.kind) {
      case 'syntax':
        return `the code does not compile${at}: ${failure.message}`;
      case 'thrown':
        return `the code threw${at}: ${failure.message}`;
      case 'timeout':
        return `the code ran past its time cap of ${caps.timeoutMs} ms and was stopped (timeoutMs may be up to ${CODE_TIMEOUT_MAX_MS})`;
      case 'memory':
        return `the code needed more than its memory cap of ${caps.memoryMb} MiB and was stopped (memoryMb may be up to ${CODE_MEMORY_MAX_MB})`;
      case 'stack':
        return `the code's ${failure.message}${at}: the sandbox's stack overflowed`;
      case 'result':
        return `the code ${failure.message}`;
      case 'unsettled':
        return 'the code returned a promise that never settled: nothing in the sandbox (it has no timers or I/O) could settle it';
      case 'crashed':
        return `the code sandbox failed: ${failure.message}`;
    }
  })();
  return `Node "${nodeId}": ${text}`;
}

/**
 * Runs a JavaScript or TypeScript function body in the WebAssembly sandbox of `#sandbox`, in one of
 * the runner's code workers (docs/workflows.md, "Code"): it reads `trigger`, `nodes` and `loop` and
 * its JSON result is the step's `result`. It has no effect outside the run, so after a crash it is
 * simply run again; it may take up to its time cap and a wait for a worker, so a run not on record
 * yet is recorded before it starts.
 */
@Injectable()
@NodeExecutorProvider()
export class CodeExecutor implements NodeExecutor {
  readonly type = 'code';
  readonly pure = true;
  readonly mayTakeLong = true;
  readonly textField = 'result';

  constructor(
    private readonly config: RunnerConfig,
    private readonly workers: CodeWorkers,
  ) {}

  prepare(context: StepContext): PreparedStep {
    const {
      code,
      language = 'javascript',
      timeoutMs = this.config.CODE_TIMEOUT_MS,
      memoryMb = this.config.CODE_MEMORY_MB,
    } = context.properties as { code?: unknown; language?: unknown; timeoutMs?: unknown; memoryMb?: unknown };
    if (typeof code !== 'string' || code === '') throw new StepFailure('code is required.');
    if (!isLanguage(language)) throw new StepFailure(`language must be one of ${CODE_LANGUAGES.join(', ')}.`);
    if (typeof timeoutMs !== 'number' || typeof memoryMb !== 'number') {
      throw new StepFailure('timeoutMs and memoryMb must be numbers.');
    }
    const caps = { timeoutMs, memoryMb };
    return {
      input: JSON.stringify({ language, ...caps }),
      run: async () => {
        const outcome = await this.workers.run(
          {
            code,
            language,
            parameters: CODE_PARAMETERS,
            setup: CODE_SETUP,
            input: codeInput(context.scope, context.run.nodeIds),
            timeoutMs,
            memoryBytes: memoryMb * MIB,
            resultMaxLength: this.config.STEP_OUTPUT_MAX_BYTES,
          },
          context.signal,
        );
        if (!outcome.ok) throw new StepFailure(codeFailure(context.node.id, outcome, caps));
        return { status: 'done', output: { result: outcome.json } };
      },
    };
  }
}
