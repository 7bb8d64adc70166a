/**
 * Untrusted JavaScript (or TypeScript, its types stripped) run in QuickJS compiled to WebAssembly: a
 * fresh runtime per job, with no host functions at all, so the code has no file, network, process,
 * timer or module access whatever it tries. The maximum of the module's WebAssembly memory gives the
 * memory cap, and the runtime's interrupt handler the time cap. Everything here runs on the calling
 * thread; the `CodeWorkerPool` runs it in worker threads so that nothing else waits on it.
 *
 * The two heavy modules (QuickJS's WebAssembly build and sucrase) are loaded on first use, so importing
 * this library costs a process that never runs code nothing.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSSyncVariant,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';

export type SandboxLanguage = 'javascript' | 'typescript';

export interface SandboxJob {
  /** The body of an async function: `return` gives the result. */
  code: string;
  language: SandboxLanguage;
  /** The names the body reads its arguments by, in the order `setup` returns them. */
  parameters: readonly string[];
  /**
   * The source of a function run in the sandbox before the code, `(input) => [argument, …]`: it turns
   * the text `input` into the arguments, so that what they cost counts against the caps.
   */
  setup: string;
  input: string;
  /** From the start of the setup to the result in JSON. */
  timeoutMs: number;
  /** Everything the runtime holds: the input, the code, what it allocates. */
  memoryBytes: number;
  /** A result whose JSON has more characters fails instead of being handed back. */
  resultMaxLength: number;
}

export type SandboxFailureKind =
  /** The code does not compile; `message` is the parser's. */
  | 'syntax'
  /** The code threw; `message` is `<name>: <message>` of what it threw. */
  | 'thrown'
  /** It ran past `timeoutMs`. */
  | 'timeout'
  /** It needed more than `memoryBytes`. */
  | 'memory'
  /** It nested calls (or, when compiling, brackets) deeper than the sandbox's stack. */
  | 'stack'
  /** It returned something that is not JSON, or too much of it; `message` says which. */
  | 'result'
  /** Its promise is still pending with nothing left to run: nothing in the sandbox can settle it. */
  | 'unsettled'
  /** The sandbox itself failed (a bug, or its worker died); `message` says how. */
  | 'crashed';

export type SandboxFailure = { ok: false; kind: SandboxFailureKind; message: string; line?: number };

export type SandboxOutcome = { ok: true; json: string } | SandboxFailure;

/** Errors and stacks name the code by this file, the setup by `setup.js`. */
const CODE_FILE = 'code.js';
/**
 * QuickJS's own stack limit. The interpreter's WebAssembly frames live on the thread's native stack,
 * and 1 MiB of QuickJS stack (about 6,000 nested calls) fits in the 8 MiB a pool worker gets with
 * room to spare; past it the code fails with a clean "stack overflow". The parser's recursion uses
 * more native stack per level and can overflow V8's first, which `runInSandbox` reports the same way.
 */
const STACK_BYTES = 1024 * 1024;
/** What describing an error may take once the code's own caps have run out. */
const DESCRIBE_MS = 100;
const DESCRIBE_HEADROOM_BYTES = 1024 * 1024;
/** A module whose WebAssembly memory grew past this is dropped after the job, which frees it. */
const MODULE_RECYCLE_BYTES = 80 * 1024 * 1024;
/** How a failure of the sandbox's stack reads, whether the code's calls or the parser overflowed it. */
const NESTED = 'calls or brackets nest too deeply';
/** The longest text kept of a thrown error's message. */
const MESSAGE_MAX_LENGTH = 2_000;

/** WebAssembly pages are 64 KiB. */
const PAGE_BYTES = 65_536;
/**
 * The build's INITIAL_MEMORY, 16 MiB: QuickJS's static data, its stack and a first heap. The code gets
 * this heap beside its cap, so the cap is what it may add, not all it may hold.
 */
const BASE_PAGES = 256;

/** What this file uses of the WebAssembly global, which Node 20's type definitions leave out. */
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<object>;
  Memory: new (descriptor: { initial: number; maximum: number }) => object;
};

let compiledWasm: Promise<object> | undefined;

/** QuickJS's WebAssembly, compiled once per thread; each module instantiates it with its own memory. */
function quickJsWasm(): Promise<object> {
  if (!compiledWasm) {
    const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    compiledWasm = readFile(path).then((bytes) => WebAssembly.compile(bytes));
    compiledWasm.catch(() => (compiledWasm = undefined));
  }
  return compiledWasm;
}

/** The WebAssembly pages of a module that gives the code `memoryBytes` beyond QuickJS's own. */
function pagesFor(memoryBytes: number): number {
  return BASE_PAGES + Math.ceil(memoryBytes / PAGE_BYTES);
}

/** The thread's module, kept for the next job with the same memory cap. */
let current: { maximumPages: number; module: Promise<QuickJSWASMModule> } | undefined;

/**
 * A QuickJS module whose whole WebAssembly memory may grow by `memoryBytes` at most. QuickJS's own
 * limit counts allocations rather than bytes in its WebAssembly builds (quickjs-emscripten issue
 * #271: 2,000 typed arrays of 100 KB pass a limit of 8 MiB), so the memory itself is what caps the
 * code: past its maximum, allocations fail and QuickJS throws "out of memory".
 */
function moduleFor(memoryBytes: number): Promise<QuickJSWASMModule> {
  const maximumPages = pagesFor(memoryBytes);
  if (current?.maximumPages === maximumPages) return current.module;
  const module = (async () => {
    const [{ newQuickJSWASMModuleFromVariant, newVariant }, build] = await Promise.all([
      import('quickjs-emscripten-core'),
      import('@jitl/quickjs-wasmfile-release-sync'),
    ]);
    // The package's types describe its CommonJS build; Node loads its ES module, whose default export
    // is the variant itself.
    const variant = newVariant(build.default as unknown as QuickJSSyncVariant, {
      wasmModule: await quickJsWasm(),
      wasmMemory: new WebAssembly.Memory({ initial: BASE_PAGES, maximum: maximumPages }),
    });
    return newQuickJSWASMModuleFromVariant(variant);
  })();
  current = { maximumPages, module };
  module.catch(() => forget(module));
  return module;
}

/** Drops the module (unusable after a host-side failure, or large): the next job makes a new one. */
function forget(module: Promise<QuickJSWASMModule>): void {
  if (current?.module === module) current = undefined;
}

/** Loads what a job needs before the first job, so that it does not count against that job's time. */
export async function preloadSandbox(): Promise<void> {
  await Promise.all([quickJsWasm(), import('quickjs-emscripten-core'), import('sucrase')]);
}

/**
 * The code as the function the sandbox compiles. The body starts on the header's line, so a line
 * number in an error is the line of the code as written; sucrase keeps lines when it strips types.
 */
async function functionSource(
  code: string,
  language: SandboxLanguage,
  parameters: readonly string[],
): Promise<string> {
  const source = `(async function (${parameters.join(', ')}) {${code}\n})`;
  if (language === 'javascript') return source;
  const { transform } = await import('sucrase');
  return transform(source, { transforms: ['typescript'], disableESTransforms: true }).code;
}

/** A failure of sucrase's parser (which throws JavaScript SyntaxErrors with `loc`) or of its recursion. */
function strippingFailure(error: unknown): SandboxFailure {
  if (error instanceof RangeError) return { ok: false, kind: 'stack', message: NESTED };
  if (error instanceof SyntaxError) {
    const { loc } = error as SyntaxError & { loc?: { line?: unknown } };
    return {
      ok: false,
      kind: 'syntax',
      message: error.message.replace(/ \(\d+:\d+\)$/, ''),
      ...(typeof loc?.line === 'number' ? { line: loc.line } : {}),
    };
  }
  return { ok: false, kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
}

/**
 * JSON of the result, made inside the sandbox (so that its cost counts against the caps) by a function
 * evaluated before the code runs: the code cannot swap `JSON.stringify` under it. Values JSON would
 * silently drop or turn into null (a function, a symbol, NaN) fail instead of losing data quietly;
 * undefined inside an object is left out, as JSON does.
 */
const TO_JSON = `((stringify) => (value, maxLength) => {
  const kind = (item) =>
    typeof item === 'function' ? 'a function' : typeof item === 'symbol' ? 'a symbol' :
    typeof item === 'number' && !Number.isFinite(item) ? String(item) : undefined;
  if (value === undefined) throw new TypeError('returned undefined, which is not JSON: return a JSON value (null for nothing)');
  const json = stringify(value, (key, item) => {
    const wrong = kind(item);
    if (wrong !== undefined) throw new TypeError('returned ' + wrong + (key === '' ? '' : ' at "' + key + '"') + ', which is not JSON');
    return item;
  });
  if (json.length > maxLength) throw new RangeError('returned more than ' + maxLength + ' characters of JSON');
  return json;
})(JSON.stringify)`;

/**
 * What a thrown value says about itself, as JSON text, read inside the sandbox: its getters run there,
 * under a short deadline of their own.
 */
const DESCRIBE = `((stringify) => (value) => {
  const text = (item) => (typeof item === 'string' ? item.slice(0, ${MESSAGE_MAX_LENGTH}) : undefined);
  try {
    if (typeof value !== 'object' || value === null) return stringify({ message: String(value).slice(0, ${MESSAGE_MAX_LENGTH}) });
    const message = text(value.message);
    return stringify({
      name: text(value.name),
      message: message ?? text(stringify(value)) ?? String(value),
      stack: text(value.stack),
      fileName: text(value.fileName),
      lineNumber: typeof value.lineNumber === 'number' ? value.lineNumber : undefined,
    });
  } catch {
    return stringify({ message: 'a value that could not be read' });
  }
})(JSON.stringify)`;

interface Described {
  /** False when reading what was thrown failed too (out of memory, most likely). */
  readable?: false;
  name?: string;
  message: string;
  stack?: string;
  fileName?: string;
  lineNumber?: number;
}

/** The line of the code an error points at: the first frame in the code, or where the parser stopped. */
function lineOf(described: Described): number | undefined {
  if (described.fileName === CODE_FILE && described.lineNumber !== undefined) return described.lineNumber;
  const frame = described.stack?.match(/code\.js:(\d+)/);
  return frame?.[1] === undefined ? undefined : Number(frame[1]);
}

/** One job on a fresh runtime of the thread's QuickJS module. */
class SandboxRun {
  private deadline: number;
  private interrupted = false;
  private readonly handles: QuickJSHandle[] = [];

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly job: SandboxJob,
    /** True when the code has taken most of its memory cap. */
    private readonly memoryFull: () => boolean,
  ) {
    this.deadline = Date.now() + job.timeoutMs;
    runtime.setMemoryLimit(job.memoryBytes);
    runtime.setMaxStackSize(STACK_BYTES);
    runtime.setInterruptHandler(() => {
      if (Date.now() <= this.deadline) return false;
      this.interrupted = true;
      return true;
    });
  }

  execute(source: string): SandboxOutcome {
    const { context, job } = this;
    const toJson = this.evaluate(TO_JSON, 'to-json.js');
    const describe = this.evaluate(DESCRIBE, 'describe.js');
    if (!toJson.ok || !describe.ok)
      return { ok: false, kind: 'crashed', message: 'the sandbox could not be set up' };
    const compiled = this.evaluate(source, CODE_FILE);
    if (!compiled.ok) return this.failure(describe.value, compiled.error, 'syntax');
    const setup = this.evaluate(`(${job.setup})`, 'setup.js');
    if (!setup.ok) return this.failure(describe.value, setup.error, 'crashed');
    const args = this.call(setup.value, this.keep(context.newString(job.input)));
    if (!args.ok) return this.failure(describe.value, args.error, 'crashed');
    const argumentHandles = job.parameters.map((_, index) => this.keep(context.getProp(args.value, index)));
    const promise = this.call(compiled.value, ...argumentHandles);
    if (!promise.ok) return this.failure(describe.value, promise.error, 'thrown');
    const settled = this.settle(promise.value);
    if (settled.state === 'rejected') return this.failure(describe.value, settled.error, 'thrown');
    if (settled.state === 'pending') {
      return this.interrupted
        ? { ok: false, kind: 'timeout', message: '' }
        : {
            ok: false,
            kind: 'unsettled',
            message: 'its promise never settled, and nothing in the sandbox could settle it later',
          };
    }
    const json = this.call(toJson.value, settled.value, this.keep(context.newNumber(job.resultMaxLength)));
    if (!json.ok) return this.failure(describe.value, json.error, 'result');
    return { ok: true, json: context.getString(json.value) };
  }

  /** Frees every handle the run kept; the runtime can then be disposed. */
  release(): void {
    for (const handle of this.handles.splice(0).reverse()) if (handle.alive) handle.dispose();
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  private evaluate(source: string, file: string): Kept {
    return this.kept(this.context.evalCode(source, file));
  }

  private call(fn: QuickJSHandle, ...args: QuickJSHandle[]): Kept {
    return this.kept(this.context.callFunction(fn, this.context.undefined, ...args));
  }

  private kept(result: { error?: QuickJSHandle; value?: QuickJSHandle }): Kept {
    if (result.error) return { ok: false, error: this.keep(result.error) };
    return { ok: true, value: this.keep(result.value as QuickJSHandle) };
  }

  /** Runs the jobs the code's promises queued until it settles or nothing is left to run. */
  private settle(
    promise: QuickJSHandle,
  ):
    | { state: 'fulfilled'; value: QuickJSHandle }
    | { state: 'rejected'; error: QuickJSHandle }
    | { state: 'pending' } {
    for (;;) {
      const state = this.context.getPromiseState(promise);
      if (state.type === 'fulfilled') return { state: 'fulfilled', value: this.keep(state.value) };
      if (state.type === 'rejected') return { state: 'rejected', error: this.keep(state.error) };
      if (!this.runtime.hasPendingJob()) return { state: 'pending' };
      const executed = this.runtime.executePendingJobs();
      // A job that threw outside the promise's chain (an interrupt, a lost rejection): the promise
      // may still settle with the jobs left, unless the time is up.
      if (executed.error) {
        this.keep(executed.error);
        if (this.interrupted) return { state: 'pending' };
      }
    }
  }

  /** A failure of the code, classified from what it threw; `otherwise` when it is none of the caps. */
  private failure(
    describe: QuickJSHandle,
    error: QuickJSHandle,
    otherwise: SandboxFailureKind,
  ): SandboxOutcome {
    if (this.interrupted) return { ok: false, kind: 'timeout', message: '' };
    const described = this.describe(describe, error);
    const line = lineOf(described);
    const at = line === undefined ? {} : { line };
    // QuickJS throws null when it runs out of memory while throwing "out of memory" (a Map that grew
    // to the last byte), and then even reading the error can fail.
    const unreadable =
      described.readable === false || (described.name === undefined && described.message === 'null');
    if (
      (described.name === 'InternalError' && described.message === 'out of memory') ||
      (unreadable && this.memoryFull())
    ) {
      return { ok: false, kind: 'memory', message: '' };
    }
    if (described.message === 'stack overflow') {
      return { ok: false, kind: 'stack', message: NESTED, ...at };
    }
    if (otherwise === 'syntax' || otherwise === 'result') {
      return { ok: false, kind: otherwise, message: described.message, ...at };
    }
    const message = described.name ? `${described.name}: ${described.message}` : described.message;
    return { ok: false, kind: otherwise, message, ...at };
  }

  /** Reads what was thrown with caps of its own: the code's may be what it ran out of. */
  private describe(describe: QuickJSHandle, error: QuickJSHandle): Described {
    this.deadline = Date.now() + DESCRIBE_MS;
    this.runtime.setMemoryLimit(this.job.memoryBytes + DESCRIBE_HEADROOM_BYTES);
    const text = this.call(describe, error);
    if (!text.ok) return { readable: false, message: 'a value that could not be read' };
    return JSON.parse(this.context.getString(text.value)) as Described;
  }
}

type Kept = { ok: true; value: QuickJSHandle } | { ok: false; error: QuickJSHandle };

/**
 * Runs one job to its outcome; never throws. A failure of the host side (V8's own stack overflowing
 * under the parser, or QuickJS aborting) leaves the module unusable, so it is dropped and the next
 * job loads a fresh one.
 */
export async function runInSandbox(job: SandboxJob): Promise<SandboxOutcome> {
  let source: string;
  try {
    source = await functionSource(job.code, job.language, job.parameters);
  } catch (error) {
    return strippingFailure(error);
  }
  const loading = moduleFor(job.memoryBytes);
  try {
    const module = await loading;
    const runtime = module.newRuntime();
    const context = runtime.newContext();
    // Half the cap taken counts as full: a failing allocation (a Map doubling its table) may ask for
    // more than is left, so the memory need not have reached its maximum when it fails.
    const mostOfCap = BASE_PAGES * PAGE_BYTES + job.memoryBytes / 2;
    const run = new SandboxRun(
      runtime,
      context,
      job,
      () => module.getWasmMemory().buffer.byteLength >= mostOfCap,
    );
    const outcome = run.execute(source);
    try {
      run.release();
      context.dispose();
      runtime.dispose();
      if (module.getWasmMemory().buffer.byteLength > MODULE_RECYCLE_BYTES) forget(loading);
    } catch {
      // A handle left behind makes QuickJS abort on dispose: the outcome stands, the module goes.
      forget(loading);
    }
    return outcome;
  } catch (error) {
    forget(loading);
    if (error instanceof RangeError) return { ok: false, kind: 'stack', message: NESTED };
    return { ok: false, kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
  }
}

/** Why code would not compile, and where. */
export interface SyntaxProblem {
  message: string;
  line?: number;
}

/** What compiling a body of at most a few hundred KiB may hold. */
const COMPILE_MEMORY_BYTES = 32 * 1024 * 1024;

/**
 * Compiles the code as `runInSandbox` would, without running any of it: null when it compiles. Cheap
 * enough for the calling thread (a millisecond for everyday code); code nested thousands deep can
 * overflow this thread's smaller stack where a pool worker's would not, and is refused as too deep.
 */
export async function codeSyntaxProblem(
  code: string,
  language: SandboxLanguage,
  parameters: readonly string[],
): Promise<SyntaxProblem | null> {
  let source: string;
  try {
    source = await functionSource(code, language, parameters);
  } catch (error) {
    return problemOf(strippingFailure(error));
  }
  const loading = moduleFor(COMPILE_MEMORY_BYTES);
  const module = await loading;
  try {
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(COMPILE_MEMORY_BYTES);
    runtime.setMaxStackSize(STACK_BYTES);
    const context = runtime.newContext();
    const result = context.evalCode(source, CODE_FILE, { compileOnly: true });
    let problem: SyntaxProblem | null = null;
    if (result.error) {
      // A parser's error is a plain SyntaxError: dumping it runs nothing of the code.
      const described = context.dump(result.error) as Described;
      result.error.dispose();
      const line = lineOf(described);
      problem =
        described.message === 'stack overflow'
          ? { message: NESTED }
          : { message: described.message, ...(line === undefined ? {} : { line }) };
    } else {
      result.value.dispose();
    }
    context.dispose();
    runtime.dispose();
    return problem;
  } catch (error) {
    forget(loading);
    if (error instanceof RangeError) return { message: NESTED };
    throw error;
  }
}

function problemOf(failure: SandboxFailure): SyntaxProblem {
  return { message: failure.message, ...(failure.line === undefined ? {} : { line: failure.line }) };
}
