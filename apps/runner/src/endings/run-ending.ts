import { DiscoveryService } from '@nestjs/core';

import type { RunWithSteps } from '../engine/run-state.js';

/** The final statuses a run's end is reacted to in. */
export type EndedStatus = 'complete' | 'errored' | 'terminated';

/** A run that ended, as its handlers see it: its record (diagram, principal, error) and its steps. */
export interface RunEnding {
  status: EndedStatus;
  run: RunWithSteps;
  /** 1 the first time the handlers are called for this run, more on a retry. */
  attempt: number;
}

/**
 * Something that must happen once after a watched run ends. It is called at least once (again after a
 * failure or a crash, until it succeeds or the attempts run out), so it must be idempotent; it throws
 * to be called again later. Handlers are discovered: mark the provider with `@RunEndingHandlerProvider()`.
 */
export interface RunEndingHandler {
  /** Kept in the outbox row once the handler succeeded, so a retry skips it: never rename one lightly. */
  readonly name: string;
  handle(ending: RunEnding): Promise<void>;
}

export const RunEndingHandlerProvider = DiscoveryService.createDecorator<void>();
