import type { ApiClient } from '#testing';

/**
 * The benchmarks' workflow, made and published through the API: an API trigger and two conditions,
 * three steps recorded per run, none of which calls out. Its input is `BENCH_RUN_INPUT`.
 */
export async function publishBenchWorkflow(api: ApiClient, projectId: string, name: string): Promise<string> {
  const workflow = await api.post(`/api/v1/projects/${projectId}/workflows`, {
    name,
    diagram: {
      nodes: [
        { id: 'hook', data: { type: 'trigger', properties: { kind: 'api' } } },
        {
          id: 'big',
          data: {
            type: 'condition',
            properties: {
              conditions: [{ left: '{{trigger.amount}}', operator: 'greater_than', right: '100' }],
            },
          },
        },
        {
          id: 'vip',
          data: {
            type: 'condition',
            properties: {
              conditions: [{ left: '{{trigger.customer}}', operator: 'starts_with', right: 'A' }],
            },
          },
        },
      ],
      edges: [
        { id: 'e1', source: 'hook', target: 'big' },
        { id: 'e2', source: 'big', target: 'vip', sourceHandle: 'true' },
      ],
    },
  });
  const workflowId = workflow.body.id as string;
  await api.post(`/api/v1/workflows/${workflowId}/publish`, {});
  return workflowId;
}

/** A start's body: the input both conditions hold for. */
export const BENCH_RUN_BODY = JSON.stringify({ input: JSON.stringify({ amount: 250, customer: 'Ada' }) });
