import { DELAY_MAX_SECONDS } from '#contracts';
import { Injectable } from '@nestjs/common';

import { type NodeExecutor, type PreparedStep, type StepContext, StepFailure } from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';

interface DelayState {
  until: string;
}

/** When a delay step is due: `seconds` after it started, or the time its `until` template gives. */
export function delayDueAt(
  properties: Readonly<Record<string, unknown>>,
  startedAt: Date,
  render: (t: string) => string,
): Date {
  if (typeof properties.seconds === 'number') {
    const seconds = properties.seconds;
    if (!(seconds >= 1 && seconds <= DELAY_MAX_SECONDS)) {
      throw new StepFailure(`seconds must be between 1 and ${DELAY_MAX_SECONDS}.`);
    }
    return new Date(startedAt.getTime() + seconds * 1000);
  }
  if (typeof properties.until === 'string') {
    const text = render(properties.until).trim();
    const due = new Date(text);
    if (text === '' || Number.isNaN(due.getTime())) {
      // Quoted only in part: a template can make the text as long as a property may be.
      const shown = text.length > 100 ? `${text.slice(0, 100)}…` : text;
      throw new StepFailure(`until gave "${shown}", which is not an ISO 8601 time.`);
    }
    return due;
  }
  throw new StepFailure('a delay needs seconds or until.');
}

/**
 * Waits durably: the step and the run become `waiting` and the job is acked; the sweeper wakes the
 * run when it is due and the step then completes. The due time is fixed when the step first starts,
 * so waking early (or twice) never stretches or shortens the wait.
 */
@Injectable()
@NodeExecutorProvider()
export class DelayExecutor implements NodeExecutor {
  readonly type = 'delay';
  readonly pure = true;
  readonly textField = null;

  prepare(context: StepContext): PreparedStep {
    const kept = context.state as Partial<DelayState> | null;
    const due =
      typeof kept?.until === 'string'
        ? new Date(kept.until)
        : delayDueAt(context.properties, context.startedAt, (template) => context.render(template, 'until'));
    return {
      input: due.toISOString(),
      run: () => {
        const now = context.now();
        if (due.getTime() > now.getTime()) {
          return Promise.resolve({ status: 'waiting', until: due, state: { until: due.toISOString() } });
        }
        return Promise.resolve({ status: 'done', output: { until: now.toISOString() } });
      },
    };
  }
}
