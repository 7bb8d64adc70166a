import {
  chainOf,
  createDatabaseIn,
  createDraft,
  createOrganization,
  createProject,
  createWorkflow,
  expectData,
  finished,
  HttpTarget,
  nodes,
  type OrganizationFixture,
  rowsOf,
  runningStack,
  runToEnd,
  startRun,
  stepOf,
  type TestNode,
  type WorkflowRun,
} from '#testing';

const stack = runningStack();

describe('code steps', () => {
  let org: OrganizationFixture;
  let projectId: string;

  beforeAll(async () => {
    org = await createOrganization(stack);
    projectId = await createProject(org.api, 'Code steps');
  });

  /** A published workflow of a trigger and `step`, run once with `input`; answers the finished run. */
  async function runOf(step: TestNode, input = ''): Promise<WorkflowRun> {
    const workflowId = await createWorkflow(org.api, projectId, chainOf(nodes.trigger('start'), step));
    return runToEnd(org.api, workflowId, { input }, { timeoutMs: 30_000 });
  }

  it('reshapes the rows of a SQL step, in TypeScript, for the steps after it', async () => {
    const databaseId = await createDatabaseIn(org.api, 'code-steps');
    await rowsOf(org.api, databaseId, [
      { sql: 'CREATE TABLE orders (customer TEXT, amount INTEGER)' },
      { sql: "INSERT INTO orders VALUES ('ada', 30), ('bob', 5), ('ada', 12)" },
    ]);
    const shape = [
      'type Order = { customer: string; amount: number };',
      'const orders: Order[] = nodes.orders.rows;',
      'const totals: Record<string, number> = {};',
      'for (const order of orders) totals[order.customer] = (totals[order.customer] ?? 0) + order.amount;',
      'return { totals, over: Object.keys(totals).filter((name) => totals[name] > trigger.over) };',
    ].join('\n');
    const workflowId = await createWorkflow(
      org.api,
      projectId,
      chainOf(
        nodes.trigger('start'),
        nodes.database('orders', databaseId, 'SELECT customer, amount FROM orders ORDER BY amount'),
        nodes.code('shape', shape, { language: 'typescript' }),
        nodes.condition('anyone', [
          { left: '{{nodes.shape.result.over}}', operator: 'contains', right: 'ada' },
        ]),
      ),
    );
    const run = await runToEnd(org.api, workflowId, { input: '{"over": 20}' }, { timeoutMs: 30_000 });
    expect(run.status).toBe('complete');
    expect(stepOf(run, 'shape')).toMatchObject({
      status: 'done',
      input: '{"language":"typescript","timeoutMs":1000,"memoryMb":32}',
      output: { result: '{"totals":{"bob":5,"ada":42},"over":["ada"]}' },
    });
    expect(stepOf(run, 'anyone')?.output).toEqual({ result: 'true' });
  });

  it('runs the example of docs/workflows.md ("Code")', async () => {
    const totals = [
      'type Line = { sku: string; qty: number; price: number };',
      'const lines: Line[] = trigger.lines;',
      'const total = lines.reduce((sum, line) => sum + line.qty * line.price, 0);',
      'return { total, skus: lines.map((line) => line.sku) };',
    ].join('\n');
    const run = await runOf(
      nodes.code('totals', totals, { language: 'typescript' }),
      '{"lines": [{"sku": "A-1", "qty": 2, "price": 15}, {"sku": "B-7", "qty": 1, "price": 4}]}',
    );
    expect(run).toMatchObject({ status: 'complete', reply: '{"total":34,"skus":["A-1","B-7"]}' });
  });

  it('refuses to publish code that does not compile, naming the node and the line', async () => {
    const workflow = await createDraft(org.api, projectId, {
      diagram: chainOf(nodes.trigger('start'), nodes.code('broken', 'const a = 1;\nreturn a +;')),
    });
    const response = await org.api.POST('/api/v1/workflows/{id}/publish', {
      params: { path: { id: workflow.id } },
    });
    expect(response.response.status).toBe(400);
    expect(response.error?.error).toMatchObject({
      code: 'invalid_workflow',
      details: {
        issues: [
          {
            nodeId: 'broken',
            path: 'nodes.1.data.properties.code',
            message: expect.stringMatching(/^node "broken": the code does not compile at line 2: /),
          },
        ],
      },
    });
  });

  it('fails a step that loops forever with the time cap error', async () => {
    const started = Date.now();
    const run = await runOf(nodes.code('spin', 'let n = 0;\nwhile (true) n += 1;', { timeoutMs: 300 }));
    expect(run).toMatchObject({
      status: 'errored',
      error:
        'Node "spin": the code ran past its time cap of 300 ms and was stopped (timeoutMs may be up to 30000)',
    });
    expect(stepOf(run, 'spin')?.status).toBe('error');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('fails a step that allocates without end with the memory cap error', async () => {
    const run = await runOf(
      nodes.code('hoard', 'const kept = [];\nfor (;;) kept.push(new Array(100000).fill(kept.length));', {
        memoryMb: 8,
        timeoutMs: 20_000,
      }),
    );
    expect(run).toMatchObject({
      status: 'errored',
      error:
        'Node "hoard": the code needed more than its memory cap of 8 MiB and was stopped (memoryMb may be up to 256)',
    });
  });

  it('gives the code no fetch, require or process: calling them fails, and nothing reaches the network', async () => {
    const target = await HttpTarget.start();
    try {
      const seen = await runOf(
        nodes.code('look', 'return [typeof fetch, typeof require, typeof process, typeof setTimeout];'),
      );
      expect(seen).toMatchObject({
        status: 'complete',
        reply: '["undefined","undefined","undefined","undefined"]',
      });
      const tries = {
        fetch: `const answer = await fetch(${JSON.stringify(target.url)});\nreturn answer.status;`,
        require: `const fs = require('fs');\nreturn fs.readFileSync('/etc/passwd', 'utf8');`,
        process: `\nprocess.exit(1);`,
      };
      const runs = await Promise.all(Object.values(tries).map((code) => runOf(nodes.code('try', code))));
      expect(runs.map((run) => [run.status, run.error])).toEqual([
        ['errored', `Node "try": the code threw at line 1: ReferenceError: 'fetch' is not defined`],
        ['errored', `Node "try": the code threw at line 1: ReferenceError: 'require' is not defined`],
        ['errored', `Node "try": the code threw at line 2: ReferenceError: 'process' is not defined`],
      ]);
      expect(target.received).toEqual([]);
    } finally {
      await target.stop();
    }
  });

  it('fails thrown errors, deep recursion and results that are not JSON with the message and the line', async () => {
    const cases: Array<[string, string]> = [
      [
        'const rows = trigger.rows;\n\nreturn rows.length;',
        "the code threw at line 3: TypeError: cannot read property 'length' of undefined",
      ],
      [
        'function down(n) {\n  return down(n + 1) + 1;\n}\nreturn down(0);',
        "the code's calls or brackets nest too deeply at line 2: the sandbox's stack overflowed",
      ],
      [
        'const answer = 42;',
        'the code returned undefined, which is not JSON: return a JSON value (null for nothing)',
      ],
      [
        'return new Promise(() => {});',
        'the code returned a promise that never settled: nothing in the sandbox (it has no timers or I/O) could settle it',
      ],
    ];
    const runs = await Promise.all(cases.map(([code]) => runOf(nodes.code('fails', code), '{}')));
    expect(runs.map((run) => run.error)).toEqual(cases.map(([, error]) => `Node "fails": ${error}`));
  });

  it('keeps other runs completing while 10 runs loop forever', async () => {
    // Each loop holds a code worker for 2.5 s; a quick run waiting on a blocked event loop would take
    // longer than that, so every quick run coming back sooner shows the loops block nothing of it.
    const spinning = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('start'), nodes.code('spin', 'while (true) {}', { timeoutMs: 2_500 })),
    );
    const quick = await createWorkflow(
      org.api,
      projectId,
      chainOf(nodes.trigger('start'), nodes.alwaysTrue('check')),
    );
    const starting = Date.now();
    const loops = await Promise.all(
      Array.from({ length: 10 }, async () => expectData(await startRun(org.api, spinning), 201).id),
    );
    // Answered once each run is on record, not once its code has run (ten loops take 25 s in turn).
    expect(Date.now() - starting).toBeLessThan(5_000);
    const latencies: number[] = [];
    const quickUntil = Date.now() + 6_000;
    while (Date.now() < quickUntil) {
      const began = Date.now();
      const run = await runToEnd(org.api, quick, { input: String(latencies.length) });
      latencies.push(Date.now() - began);
      expect(run.status).toBe('complete');
    }
    const statuses = await Promise.all(
      loops.map(
        async (id) =>
          expectData(await org.api.GET('/api/v1/runs/{id}', { params: { path: { id } } }), 200).status,
      ),
    );
    // The quick runs overlapped the loops: some were still spinning or waiting for a worker.
    expect(statuses.filter((status) => status === 'running').length).toBeGreaterThan(0);
    expect(latencies.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...latencies)).toBeLessThan(2_000);
    for (const id of loops) {
      expect(await finished(org.api, id, { timeoutMs: 90_000 })).toMatchObject({
        status: 'errored',
        error:
          'Node "spin": the code ran past its time cap of 2500 ms and was stopped (timeoutMs may be up to 30000)',
      });
    }
  }, 180_000);
});
