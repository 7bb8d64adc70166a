import { notificationText, type RunEndedRequest } from '#contracts';

/**
 * What a delivery POSTs about a run that ended, in the Standard Webhooks shape `{type, timestamp,
 * data}` (docs/notifications.md, "The body"). Fixed when the delivery is recorded: every attempt sends
 * these bytes.
 */
export function notificationBody(run: RunEndedRequest): string {
  const error = notificationText(run.error);
  const reply = notificationText(run.reply);
  return JSON.stringify({
    type: `run.${run.status}`,
    timestamp: run.finishedAt,
    data: {
      runId: run.runId,
      workflowId: run.workflowId,
      version: run.version,
      status: run.status,
      error: error.text,
      errorTruncated: error.truncated,
      reply: reply.text,
      replyTruncated: reply.truncated,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      // Paths on this service's own address, which the events service does not know.
      links: { api: `/api/v1/runs/${run.runId}`, console: `/runs/${run.runId}` },
    },
  });
}
