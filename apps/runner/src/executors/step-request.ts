import type { Principal, RpcSubject } from '#contracts';
import { ResponderLost, type RpcClient } from '#nats';

import type { StepContext } from './node-executor.js';

/** How many times a step's request is sent again after the service working on it died. */
const RESENDS_AFTER_LOSS = 3;

/**
 * A step's request to the service that carries it out (an action, an agent, a query). While nobody
 * serves the subject it is sent again for up to `patienceMs`: nobody received it, nothing happened.
 * When the service that took it dies mid-way (a `working` subject goes silent), the step runs again
 * as it would after its runner crashed: at least once, with the same idempotency key, and
 * `build(true)` tells the service it is a re-run. The run keeps its lease meanwhile.
 */
export async function stepRequest<TRequest extends object, TReply>(
  rpc: RpcClient,
  entry: RpcSubject<TRequest, TReply, Principal>,
  context: StepContext,
  build: (rerun: boolean) => TRequest,
  { timeoutMs, patienceMs }: { timeoutMs: number; patienceMs: number },
): Promise<TReply> {
  for (let losses = 0; ; losses += 1) {
    try {
      return await rpc.requestWhenServed(entry, context.run.principal, build(losses > 0), {
        timeoutMs,
        patienceMs,
        signal: context.signal,
      });
    } catch (error) {
      if (!(error instanceof ResponderLost) || losses >= RESENDS_AFTER_LOSS || context.signal.aborted)
        throw error;
    }
  }
}
