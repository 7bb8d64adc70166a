import type { EventOutcome } from '#contracts';
import type { Selectable } from 'kysely';

import type { EventsEventOutcomes } from '../events.tables.js';

/** One trigger an event reached, and what it did (null while its fan-out has not decided yet). */
export interface OutcomeRecord {
  eventId: string;
  workflowId: string;
  triggerNodeId: string;
  outcome: EventOutcome | null;
  runId: string | null;
  error: string | null;
  at: Date;
}

export interface Listener {
  workflowId: string;
  triggerNodeId: string;
}

export interface DecidedOutcome extends Listener {
  outcome: EventOutcome;
  runId?: string | null;
  error?: string | null;
}

/** A listener whose outcome could not be decided yet (the runner did not answer): it stays pending. */
export interface UndecidedOutcome extends Listener {
  outcome: null;
}

export const toOutcomeRecord = (row: Selectable<EventsEventOutcomes>): OutcomeRecord => ({
  eventId: row.event_id,
  workflowId: row.workflow_id,
  triggerNodeId: row.trigger_node_id,
  outcome: row.outcome,
  runId: row.run_id,
  error: row.error,
  at: row.at,
});

/** Outcomes as one array per column, for `unnest`: a pending one keeps no run id nor error. */
export const outcomeColumns = (outcomes: Array<DecidedOutcome | UndecidedOutcome>) => ({
  workflowIds: outcomes.map((outcome) => outcome.workflowId),
  triggerNodeIds: outcomes.map((outcome) => outcome.triggerNodeId),
  outcomes: outcomes.map((outcome) => outcome.outcome),
  runIds: outcomes.map((outcome) => (outcome.outcome === null ? null : (outcome.runId ?? null))),
  errors: outcomes.map((outcome) => (outcome.outcome === null ? null : (outcome.error ?? null))),
});
