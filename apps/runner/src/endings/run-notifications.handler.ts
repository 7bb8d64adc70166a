import { EventsSubjects, runEndedText, runNotificationsOf, servicePrincipal } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

import { type RunEnding, type RunEndingHandler, RunEndingHandlerProvider } from './run-ending.js';
import { RunTimesRepository } from './run-times.repository.js';

/**
 * Run notifications (docs/notifications.md): a run of a published version whose diagram names
 * endpoints for its final status is handed to the events service, which records one delivery per endpoint (once per endpoint and run,
 * however often this is called) and sends them. The outbox row stays until events has answered.
 */
@Injectable()
@RunEndingHandlerProvider()
export class RunNotificationsHandler implements RunEndingHandler {
  readonly name = 'notifications';

  constructor(
    private readonly rpc: RpcClient,
    private readonly times: RunTimesRepository,
  ) {}

  async handle({ status, run: { run } }: RunEnding): Promise<void> {
    // A draft's settings were never checked at publish: they take effect once published.
    if (run.version === null) return;
    const notifications = runNotificationsOf(run.diagram).filter((entry) => entry.statuses.includes(status));
    if (notifications.length === 0) return;
    const times = await this.times.of(run.id);
    if (!times) return;
    await this.rpc.request(EventsSubjects.notificationsRunEnded, servicePrincipal(run.organizationId), {
      runId: run.id,
      workflowId: run.workflowId,
      version: run.version,
      status,
      error: runEndedText(run.error),
      reply: runEndedText(run.reply),
      startedAt: times.startedAt.toISOString(),
      // Set with every final status; the outbox row is written in the same statement.
      finishedAt: (times.finishedAt ?? new Date()).toISOString(),
      notifications,
    });
  }
}
