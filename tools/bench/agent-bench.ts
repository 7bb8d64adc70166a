/**
 * Agent step benchmark: runs of api trigger → Agent step against a scripted OpenAI-compatible model
 * that answers at once, at several numbers of concurrent clients. Reports completed runs per second,
 * start → complete latency, and the platform's own overhead per model call: the Agent step's
 * recorded duration minus the time the model server took to answer (one model call per step).
 *
 *   npm run build && node dist/tools/bench/agent-bench.js [--seconds 10] [--clients 1,10]
 */
import { FINAL_RUN_STATUSES, type RunChangedEvent, RunnerSubjects } from '#contracts';
import { chainOf, connectAs, createOrganization, nodes, ScriptedModel, TestStack } from '#testing';

import { argument } from './src/context.js';
import { machineTicks } from './src/measure.js';

const seconds = Number(argument('seconds', '10'));
const levels = argument('clients', '1,10').split(',').map(Number);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const round = (value: number) => Math.round(value * 10) / 10;

const model = await ScriptedModel.start();
const stack = await TestStack.start(
  {
    AI_GATEWAY_URL: model.url,
    AI_GATEWAY_DEFAULT_MODEL: 'scripted',
    RATE_LIMIT_PER_HOUR: '100000000',
    LOG_LEVEL: 'warn',
  },
  { services: ['catalog', 'events', 'agent', 'workflow', 'runner'] },
);
const nats = await connectAs(stack.description, 'gateway');
try {
  const org = await createOrganization(stack.description, { plan: 'enterprise' });
  const project = (await org.api.post('/api/v1/projects', { name: 'Agent bench' })).body.id as string;
  const agentId = (await org.api.post('/api/v1/agents', { name: 'bench', thinkingLevel: 'off' })).body.id;
  const workflow = await org.api.post(`/api/v1/projects/${project}/workflows`, {
    name: 'Agent bench',
    diagram: chainOf(nodes.trigger('t'), {
      id: 'ask',
      data: { type: 'agent', properties: { agentId, task: '' } },
    }),
  });
  await org.api.post(`/api/v1/workflows/${workflow.body.id}/publish`, {});
  const runsUrl = `/api/v1/workflows/${workflow.body.id}/runs`;

  const waiters = new Map<string, () => void>();
  const early = new Set<string>();
  nats.subscribe(`${stack.env.NATS_SUBJECT_PREFIX}${RunnerSubjects.runChanged.bare}.*`, {
    callback: (_error, message) => {
      const { runId, status } = message.json<RunChangedEvent>();
      if (!FINAL_RUN_STATUSES.includes(status)) return;
      const waiter = waiters.get(runId);
      if (waiter) waiter();
      else early.add(runId);
    },
  });
  const finished = (runId: string) =>
    early.delete(runId)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.set(runId, () => (waiters.delete(runId), resolve())));

  let sequence = 0;
  const rows: string[] = [];
  for (const clients of levels) {
    const latencies: number[] = [];
    const runIds = new Map<string, string>();
    const deadline = Date.now() + seconds * 1000;
    const ticks = machineTicks();
    const began = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (Date.now() < deadline) {
          const task = `task-${(sequence += 1)}`;
          const t0 = performance.now();
          const started = await org.api.post(runsUrl, { input: task });
          if (started.status !== 201) throw new Error(`start answered ${started.status}`);
          await finished(started.body.id);
          latencies.push(performance.now() - t0);
          runIds.set(task, started.body.id);
        }
      }),
    );
    const elapsed = (performance.now() - began) / 1000;
    const after = machineTicks();
    // The model's time per task, then the platform's: the step's recorded duration minus it.
    const modelMs = new Map(
      model.calls.map((call) => [String(call.messages.at(-1)?.content), call.ms ?? NaN] as const),
    );
    const overheads: number[] = [];
    for (const [task, runId] of [...runIds].slice(0, 300)) {
      const run = await org.api.get(`/api/v1/runs/${runId}`);
      const step = (run.body.steps as Array<{ nodeId: string; ms: number; status: string }>).find(
        (candidate) => candidate.nodeId === 'ask',
      );
      if (step?.status !== 'done') throw new Error(`run ${runId} did not complete its agent step`);
      overheads.push(step.ms - (modelMs.get(task) ?? 0));
    }
    const row = {
      clients,
      runsPerSecond: round(latencies.length / elapsed),
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      overheadP50: round(percentile(overheads, 50)),
      overheadP99: round(percentile(overheads, 99)),
      machineCpu: Math.round(((after.busy - ticks.busy) / (after.total - ticks.total)) * 100),
    };
    console.log(JSON.stringify(row));
    rows.push(
      `| ${row.clients} | ${row.runsPerSecond} | ${row.p50} / ${row.p99} | ${row.overheadP50} / ${row.overheadP99} | ${row.machineCpu}% |`,
    );
  }
  console.log(
    [
      '| clients | completed runs/s | start → complete p50 / p99 ms | overhead per model call p50 / p99 ms | machine CPU |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
} finally {
  await nats.close();
  await stack.stop();
  await model.stop();
}
