import { register } from 'prom-client';

import { setHeld } from './run-gauges.service.js';

const exposed = async () =>
  (await register.getSingleMetric('flowmesh_runs_held')!.get()).values.map(({ labels, value }) => [
    labels['gate'],
    labels['workflow_id'],
    value,
  ]);

describe('setHeld', () => {
  it('names the 20 workflows holding most runs and sums the rest as other, per gate', async () => {
    const held = Array.from({ length: 22 }, (_, index) => ({
      workflowId: `wf-${index}`,
      gate: 'concurrency' as const,
      count: 100 - index,
    }));
    setHeld([...held, { workflowId: 'wf-21', gate: 'share', count: 1 }]);
    const values = await exposed();
    expect(values).toHaveLength(21 + 1);
    expect(values).toContainEqual(['concurrency', 'wf-0', 100]);
    expect(values).toContainEqual(['concurrency', 'wf-19', 81]);
    expect(values).toContainEqual(['concurrency', 'other', 80 + 79]);
    expect(values).toContainEqual(['share', 'other', 1]);
  });

  it('drops what holds nothing any more', async () => {
    setHeld([{ workflowId: 'wf-a', gate: 'throttle', count: 2 }]);
    setHeld([]);
    expect(await exposed()).toEqual([]);
  });
});
