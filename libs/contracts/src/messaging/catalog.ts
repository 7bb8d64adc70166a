import { AgentSubjects } from '../agents/agent.subjects.js';
import { CatalogSubjects } from '../catalog/catalog.subjects.js';
import { DatabaseSubjects } from '../databases/database.subjects.js';
import { EventJobsStream, EventsSubjects } from '../events/event.subjects.js';
import { RunJobsStream, RunnerSubjects } from '../runs/run.subjects.js';
import { WorkflowSubjects } from '../workflows/workflow.subjects.js';
import type { CatalogEntry, JetStreamEntry } from './subject-catalog.js';

/**
 * Every subject and stream of the system. The NATS server's permissions are rendered from this list,
 * so a subject that is not here cannot be used by anyone.
 */
export const SUBJECT_CATALOG: readonly CatalogEntry[] = [
  ...Object.values(CatalogSubjects),
  ...Object.values(WorkflowSubjects),
  ...Object.values(RunnerSubjects),
  ...Object.values(DatabaseSubjects),
  ...Object.values(EventsSubjects),
  ...Object.values(AgentSubjects),
];

export const JETSTREAM_CATALOG: readonly JetStreamEntry[] = [RunJobsStream, EventJobsStream];
