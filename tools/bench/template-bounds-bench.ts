/**
 * Template bounds probe (issue 23, item 4): what one run a tenant writes costs the runner and the
 * readers of runs. The probe of the issue is a 2.8 KB diagram whose condition has `{{trigger}}` 200
 * times in one property, started with a 100,000-character input; the same run as main stored it (its
 * step input 20 MB, written into Postgres) is read as a run recorded before the limits; the largest
 * run is a diagram at the node limit whose every step stores as much as the limits let it. For each
 * it reports the time of the run's start and of `GET /runs/{id}`, their statuses and answer sizes,
 * and the runner's peak resident memory (`VmHWM`, the kernel's high-water mark of the process).
 *
 *   npm run build && node dist/tools/bench/template-bounds-bench.js [--probe issue|largest|both]
 *
 * It starts a stack of its own (fresh database, own NATS server with the deployment's 8 MB
 * `max_payload`), one process per service, so the runner's memory is its own.
 */
import { DIAGRAM_MAX_NODES } from '#contracts';
import { createOrganization, nodes, type TestDiagram, templateProbe, TestStack, waitFor } from '#testing';

import pg from 'pg';

import { benchContext, statusField } from './src/context.js';

const argument = (name: string, fallback: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
};
const probe = argument('probe', 'both');
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** The issue's probe, with the input it was started with. */
const issueProbe = () => ({ diagram: templateProbe(), input: 'x'.repeat(100_000) });

/**
 * The largest run: `steps` conditions side by side after the trigger, each testing the whole input,
 * of control characters (what JSON escapes the most, six bytes each). Every step's input is as large
 * as one input can make it, and steps start until the run's data limit stops one.
 */
function largestRun(steps: number): { diagram: TestDiagram; input: string } {
  const conditions = Array.from({ length: steps }, (_, index) =>
    nodes.condition(`c${index}`, [{ left: '{{trigger}}', operator: 'is_not_empty' }]),
  );
  return {
    diagram: {
      nodes: [nodes.trigger('t'), ...conditions],
      edges: conditions.map((condition, index) => ({ id: `e${index}`, source: 't', target: condition.id })),
    },
    input: '\u0001'.repeat(100_000),
  };
}

interface Measured {
  probe: string;
  startStatus: number;
  startMs: number;
  startBytes: number;
  runStatus: string;
  getStatus: number;
  getMs: number;
  getBytes: number;
  stepError: string;
  runnerPeakMiB: number;
}

async function measure(
  stack: TestStack,
  name: string,
  { diagram, input }: { diagram: TestDiagram; input: string },
  beforeRead: (runId: string) => Promise<void> = () => Promise.resolve(),
): Promise<Measured> {
  const { api } = await createOrganization(stack.description);
  const project = await api.post('/api/v1/projects', { name: 'Bench' });
  const workflow = await api.post(`/api/v1/projects/${project.body.id}/workflows`, {
    name: `Probe ${name}`,
    diagram,
  });
  const published = await api.post(`/api/v1/workflows/${workflow.body.id}/publish`, {});
  if (published.status !== 201) {
    throw new Error(`publish answered ${published.status}: ${JSON.stringify(published.body).slice(0, 500)}`);
  }
  const request = (method: string, path: string, body?: unknown) =>
    fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${api.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  let began = performance.now();
  const start = await request('POST', `/api/v1/workflows/${workflow.body.id}/runs`, { input });
  const startText = await start.text();
  const startMs = performance.now() - began;
  let runId = start.status === 201 ? (JSON.parse(startText) as { id: string }).id : undefined;
  // A start that timed out may still have recorded its run: find it in the workflow's list.
  runId ??= await waitFor(
    async () => {
      const list = await api.get(`/api/v1/workflows/${workflow.body.id}/runs`);
      return (list.body?.data?.[0]?.id as string | undefined) ?? undefined;
    },
    { timeoutMs: 60_000, what: 'the run to be listed' },
  );
  // Wait (up to a minute) for the run to end, by its summary in the list, which carries no steps.
  const runStatus = await waitFor(
    async () => {
      const list = await api.get(`/api/v1/workflows/${workflow.body.id}/runs`);
      const status = list.body?.data?.find((run: { id: string }) => run.id === runId)?.status as
        string | undefined;
      return status && ['complete', 'errored', 'terminated'].includes(status) ? status : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'the run to end' },
  ).catch(() => 'not final after 60 s');
  await beforeRead(runId);

  began = performance.now();
  const get = await request('GET', `/api/v1/runs/${runId}`);
  const getText = await get.text();
  const getMs = performance.now() - began;
  let stepError = '';
  try {
    const run = JSON.parse(getText) as { steps?: Array<{ error: string | null }>; error?: unknown };
    stepError = run.steps?.find((step) => step.error)?.error ?? JSON.stringify(run.error ?? '');
  } catch {
    stepError = getText.slice(0, 200);
  }
  const runner = stack.processes.get('runner')?.child.pid ?? -1;
  return {
    probe: name,
    startStatus: start.status,
    startMs: round(startMs),
    startBytes: Buffer.byteLength(startText),
    runStatus,
    getStatus: get.status,
    getMs: round(getMs),
    getBytes: Buffer.byteLength(getText),
    stepError: stepError.slice(0, 160),
    runnerPeakMiB: round(statusField(runner, 'VmHWM') / 1024),
  };
}

const context = benchContext();
const stack = await TestStack.start({ LOG_LEVEL: 'warn' });
try {
  const runner = stack.processes.get('runner')?.child.pid ?? -1;
  const idleMiB = round(statusField(runner, 'VmHWM') / 1024);
  const results: Measured[] = [];
  if (probe !== 'largest') {
    results.push(await measure(stack, 'issue', issueProbe()));
    // The same run as main recorded it, its step input 20 MB: read as a run recorded before the limits.
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const asOnMain = (runId: string) =>
        db
          .query(
            `UPDATE runner.run_steps SET input = repeat('x', 20000000) WHERE run_id = $1 AND node_id = 'c'`,
            [runId],
          )
          .then(() => undefined);
      results.push(await measure(stack, 'issue, 20 MB input kept', issueProbe(), asOnMain));
    } finally {
      await db.end();
    }
  }
  if (probe !== 'issue') {
    // The trigger and as many conditions as a diagram may hold beside it.
    const steps = Number(argument('steps', String(DIAGRAM_MAX_NODES - 1)));
    results.push(await measure(stack, `largest (${steps} steps)`, largestRun(steps)));
  }
  console.log(`Template bounds probe: ${context.line}`);
  console.log(`runner peak RSS before the probes: ${idleMiB} MiB`);
  console.table(results);
} finally {
  await stack.stop();
}
