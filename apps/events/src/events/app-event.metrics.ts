import type { EventOutcome } from '#contracts';
import { Counter } from 'prom-client';

/**
 * App events (webhook deliveries) and what they did. `app` is the connection's integration
 * (`github`, `slack`, …): one of the integrations this build knows, never a connection id.
 */
const received = new Counter({
  name: 'flowmesh_app_events_received_total',
  help: 'Webhook deliveries received, by app and result (stored, duplicate: a redelivery already stored).',
  labelNames: ['app', 'result'] as const,
});
const outcomes = new Counter({
  name: 'flowmesh_app_event_outcomes_total',
  help: 'What an app event did for each trigger listening to it, by outcome (started a run, or why not).',
  labelNames: ['outcome'] as const,
});

export function appEventReceived(app: string, stored: boolean): void {
  received.labels(app, stored ? 'stored' : 'duplicate').inc();
}

export function appEventDecided(decided: ReadonlyArray<{ outcome: EventOutcome }>): void {
  for (const { outcome } of decided) outcomes.labels(outcome).inc();
}
