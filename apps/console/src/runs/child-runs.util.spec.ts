import { describe, expect, it } from '@jest/globals';

import type { Schemas } from '../api/client';
import { childRunsOf } from './child-runs.util';

type Step = Schemas['RunStepDto'];

const step = (nodeId: string, output: Record<string, string> | null, extra: Partial<Step> = {}): Step => ({
  nodeId,
  status: 'done',
  via: [],
  input: null,
  output,
  error: null,
  ms: 1,
  startedAt: '2026-11-27T10:00:00.000Z',
  ...extra,
});

const node = (id: string, type: string) => ({ id, data: { type, properties: {} } });

describe('childRunsOf', () => {
  it("links each workflow step to the child run it started, and nothing else's runId", () => {
    const run = {
      diagram: {
        nodes: [
          node('t', 'trigger'),
          node('call', 'workflow'),
          node('fire', 'workflow'),
          node('api', 'action'),
        ],
        edges: [],
      },
      steps: [
        step('t', { payload: '{"runId":"x"}' }),
        step('call', { runId: 'child-1' }, { status: 'waiting' }),
        step('fire', null, { status: 'error', error: 'could not be started' }),
        step('api', { runId: 'not-a-child' }),
      ],
    };
    expect(childRunsOf(run)).toEqual(new Map([['call', 'child-1']]));
  });
});
