import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import type { Schemas } from '../api/client';
import { stepKey } from './run-control.util';

type Run = Schemas['WorkflowRunDto'];
type Step = Schemas['RunStepDto'];

export type Liveness = 'connecting' | 'live' | 'ended' | 'lost';

/**
 * Follows a run live from its event stream (`GET /api/v1/runs/{id}/stream`): the first `run` event is
 * the whole state, then `step` and `status` changes, then `end`.
 */
export function useLiveRun(runId: string) {
  const client = useQueryClient();
  const [live, setLive] = useState<Liveness>('connecting');
  useEffect(() => {
    const key = ['run', runId];
    const source = new EventSource(`/api/v1/runs/${encodeURIComponent(runId)}/stream`);
    const update = (change: (run: Run) => Run) =>
      client.setQueryData<Run>(key, (run) => (run ? change(run) : run));
    source.addEventListener('run', (event) => {
      client.setQueryData(key, JSON.parse((event as MessageEvent<string>).data) as Run);
      setLive('live');
    });
    source.addEventListener('step', (event) => {
      const step = JSON.parse((event as MessageEvent<string>).data) as Step;
      update((run) => {
        const at = run.steps.findIndex((known) => stepKey(known) === stepKey(step));
        const steps =
          at === -1 ? [...run.steps, step] : run.steps.map((known, i) => (i === at ? step : known));
        return { ...run, steps };
      });
    });
    source.addEventListener('status', (event) => {
      const status = JSON.parse((event as MessageEvent<string>).data) as Pick<
        Run,
        'status' | 'reply' | 'error'
      >;
      // `heldBy` and `heldKey` describe a queued run only, and the stream does not send them again.
      update((run) => ({
        ...run,
        status: status.status,
        reply: status.reply,
        error: status.error,
        heldBy: undefined,
        heldKey: undefined,
      }));
    });
    source.addEventListener('end', () => {
      source.close();
      setLive('ended');
      void client.invalidateQueries({ queryKey: key });
    });
    source.onerror = () => {
      // EventSource reconnects by itself; a refused stream (404) closes for good.
      if (source.readyState === EventSource.CLOSED) setLive('lost');
    };
    return () => source.close();
  }, [client, runId]);
  return live;
}
