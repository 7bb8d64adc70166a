import { codeSyntaxProblem, runInSandbox, type SandboxJob } from './sandbox.js';

const MIB = 1024 * 1024;

/** Hands the input to the code as its one argument, `data`, parsed. */
const PARSE_INPUT = '(input) => [JSON.parse(input)]';

function job(code: string, extra: Partial<SandboxJob> = {}): SandboxJob {
  return {
    code,
    language: 'javascript',
    parameters: ['data'],
    setup: PARSE_INPUT,
    input: '{"rows": [{"name": "ada"}, {"name": "grace"}]}',
    timeoutMs: 1000,
    memoryBytes: 32 * MIB,
    resultMaxLength: MIB,
    ...extra,
  };
}

describe('runInSandbox', () => {
  it('returns what the code returns, as JSON, awaiting what it awaits', async () => {
    expect(await runInSandbox(job('return data.rows.map((row) => row.name.toUpperCase());'))).toEqual({
      ok: true,
      json: '["ADA","GRACE"]',
    });
    expect(
      await runInSandbox(job('const n = await Promise.resolve(2);\nawait null;\nreturn { n };')),
    ).toEqual({
      ok: true,
      json: '{"n":2}',
    });
    expect(await runInSandbox(job('return null;'))).toEqual({ ok: true, json: 'null' });
  });

  it('strips the types of TypeScript and keeps its lines', async () => {
    const code = [
      'interface Row { name: string }',
      'const rows: Row[] = data.rows as Row[];',
      'enum Shout { No, Yes }',
      'const names = rows.map((row: Row): string => row.name);',
      'if (names.length > 1) throw new Error(`two names: ${names.join()} ${Shout.Yes}`);',
    ].join('\n');
    expect(await runInSandbox(job(code, { language: 'typescript' }))).toEqual({
      ok: false,
      kind: 'thrown',
      message: 'Error: two names: ada,grace 1',
      line: 5,
    });
    expect(await runInSandbox(job('let n: number = 1;\nreturn n + 1;', { language: 'typescript' }))).toEqual({
      ok: true,
      json: '2',
    });
  });

  it('refuses types in JavaScript, and syntax errors, naming the line', async () => {
    expect(await runInSandbox(job('\nlet n: number = 1;'))).toEqual({
      ok: false,
      kind: 'syntax',
      message: expect.any(String),
      line: 2,
    });
    expect(await runInSandbox(job('const a = 1;\n\nconst b = ;'))).toEqual({
      ok: false,
      kind: 'syntax',
      message: "unexpected token in expression: ';'",
      line: 3,
    });
    expect(await runInSandbox(job('const a = 1;\nconst b = ;', { language: 'typescript' }))).toEqual({
      ok: false,
      kind: 'syntax',
      message: 'Unexpected token',
      line: 2,
    });
  });

  it('reports what the code threw, and the line of the code it was thrown from', async () => {
    expect(await runInSandbox(job('const row = data.rows[5];\nreturn row.name;'))).toEqual({
      ok: false,
      kind: 'thrown',
      message: "TypeError: cannot read property 'name' of undefined",
      line: 2,
    });
    expect(await runInSandbox(job('\n\nthrow "plain text";'))).toEqual({
      ok: false,
      kind: 'thrown',
      message: 'plain text',
    });
    expect(await runInSandbox(job('await null;\nthrow { code: 7 };'))).toEqual({
      ok: false,
      kind: 'thrown',
      message: '{"code":7}',
    });
  });

  it('has no file, network, process, module or timer access', async () => {
    const names = ['fetch', 'require', 'process', 'setTimeout', 'XMLHttpRequest', 'WebAssembly', 'std', 'os'];
    expect(await runInSandbox(job(`return [${names.map((name) => `typeof ${name}`).join(', ')}];`))).toEqual({
      ok: true,
      json: JSON.stringify(names.map(() => 'undefined')),
    });
    expect(await runInSandbox(job('return await fetch("https://example.com");'))).toEqual({
      ok: false,
      kind: 'thrown',
      message: "ReferenceError: 'fetch' is not defined",
      line: 1,
    });
    expect(await runInSandbox(job('return import("fs");'))).toMatchObject({ ok: false, kind: 'thrown' });
  });

  it('stops code past its time cap, however it loops', async () => {
    for (const code of [
      'while (true) {}',
      'for (;;) await null;',
      'return /(a+)+$/.test("a".repeat(40) + "!");',
    ]) {
      const started = Date.now();
      expect(await runInSandbox(job(code, { timeoutMs: 200 }))).toEqual({
        ok: false,
        kind: 'timeout',
        message: '',
      });
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // A loop that catches what stops it is stopped all the same.
    expect(
      await runInSandbox(job('for (;;) { try { while (true) {} } catch {} }', { timeoutMs: 200 })),
    ).toEqual({ ok: false, kind: 'timeout', message: '' });
  });

  it('stops code past its memory cap', async () => {
    for (const code of [
      'const all = []; for (;;) all.push(new Array(10000).fill(all.length));',
      'return "x".repeat(100 * 1024 * 1024).length;',
      // Small entries to the last byte: QuickJS then throws null rather than its error.
      'const seen = new Map(); for (let n = 0; ; n += 1) seen.set(n, [n]);',
    ]) {
      expect(await runInSandbox(job(code, { memoryBytes: 8 * MIB, timeoutMs: 10_000 }))).toEqual({
        ok: false,
        kind: 'memory',
        message: '',
      });
    }
    // Within the cap, the same allocation works.
    expect(
      await runInSandbox(job('return "x".repeat(1024 * 1024).length;', { memoryBytes: 8 * MIB })),
    ).toEqual({
      ok: true,
      json: '1048576',
    });
  });

  it('stops recursion at the sandbox stack', async () => {
    // On this test's main thread V8's smaller stack overflows before QuickJS's own limit, so the line
    // is not known here; in a pool worker it is (code-steps.e2e-spec.ts).
    expect(
      await runInSandbox(job('function down(n) { return down(n + 1) + 1; }\nreturn down(0);')),
    ).toMatchObject({
      ok: false,
      kind: 'stack',
      message: 'calls or brackets nest too deeply',
    });
  });

  it('fails a result that is not JSON, or too long', async () => {
    expect(await runInSandbox(job('const rows = data.rows;'))).toEqual({
      ok: false,
      kind: 'result',
      message: 'returned undefined, which is not JSON: return a JSON value (null for nothing)',
    });
    expect(await runInSandbox(job('return { f() {} };'))).toEqual({
      ok: false,
      kind: 'result',
      message: 'returned a function at "f", which is not JSON',
    });
    expect(await runInSandbox(job('return [1 / 0];'))).toEqual({
      ok: false,
      kind: 'result',
      message: 'returned Infinity at "0", which is not JSON',
    });
    expect(await runInSandbox(job('const a = []; a.push(a); return a;'))).toMatchObject({
      ok: false,
      kind: 'result',
      message: expect.stringContaining('circular'),
    });
    expect(await runInSandbox(job('return 10n;'))).toMatchObject({ ok: false, kind: 'result' });
    expect(await runInSandbox(job('return "x".repeat(100);', { resultMaxLength: 50 }))).toEqual({
      ok: false,
      kind: 'result',
      message: 'returned more than 50 characters of JSON',
    });
  });

  it('fails a promise nothing can settle', async () => {
    expect(await runInSandbox(job('return new Promise(() => {});'))).toEqual({
      ok: false,
      kind: 'unsettled',
      message: 'its promise never settled, and nothing in the sandbox could settle it later',
    });
  });

  it('keeps nothing from one job to the next', async () => {
    expect(await runInSandbox(job('globalThis.leftover = 1; JSON.stringify = () => "x"; return 1;'))).toEqual(
      {
        ok: true,
        json: '1',
      },
    );
    expect(await runInSandbox(job('return [typeof leftover, JSON.stringify([1])];'))).toEqual({
      ok: true,
      json: '["undefined","[1]"]',
    });
  });

  it('goes on working after each kind of failure', async () => {
    const failing = [
      job('while (true) {}', { timeoutMs: 50 }),
      job('const all = []; for (;;) all.push(all.length);', { memoryBytes: 4 * MIB, timeoutMs: 10_000 }),
      job('function down() { return down() + 1; } return down();'),
      job(`return ${'['.repeat(100_000)}`),
      job('throw new Error("x")'),
    ];
    for (const failed of failing) {
      expect((await runInSandbox(failed)).ok).toBe(false);
      expect(await runInSandbox(job('return 1 + 1;'))).toEqual({ ok: true, json: '2' });
    }
  });
});

describe('codeSyntaxProblem', () => {
  it('answers null for code that compiles, without running it', async () => {
    expect(await codeSyntaxProblem('while (true) {}', 'javascript', ['data'])).toBeNull();
    expect(await codeSyntaxProblem('const n: number = 1; return n;', 'typescript', ['data'])).toBeNull();
  });

  it('names the problem and its line', async () => {
    expect(await codeSyntaxProblem('const a = 1;\nconst a = 2;', 'javascript', ['data'])).toEqual({
      message: 'invalid redefinition of lexical identifier',
      line: 2,
    });
    expect(await codeSyntaxProblem('\nlet data = 1;', 'javascript', ['data'])).toMatchObject({ line: 2 });
    expect(await codeSyntaxProblem('return {', 'typescript', ['data'])).toEqual({
      message: 'Unexpected token, expected ";"',
      line: 2,
    });
    expect(
      await codeSyntaxProblem(`return ${'('.repeat(100_000)}1${')'.repeat(100_000)};`, 'javascript', []),
    ).toEqual({
      message: 'calls or brackets nest too deeply',
    });
  });
});
