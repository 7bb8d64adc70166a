import type { ErrorWorkflowOutcome } from '#contracts';
import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { RunWithSteps } from '../engine/run-state.js';
import type { DB } from '../runner.tables.js';
import { RUN_RECORD_COLUMNS, toRunWithSteps } from '../runs/run.mapper.js';
import { stepsOfR } from '../runs/run.statements.js';

/** A run that ended, with its steps and when it ended. */
export interface EndedRun extends RunWithSteps {
  finishedAt: Date | null;
}

/** Reads a failed run for its error workflow, and records what starting that came to. */
@Injectable()
export class ErrorWorkflowRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  async find(runId: string): Promise<EndedRun | null> {
    const row = await this.db
      .selectFrom('runner.runs as r')
      .select(RUN_RECORD_COLUMNS)
      .select(['r.finished_at as finishedAt', stepsOfR(this.db)])
      .where('r.id', '=', runId)
      .executeTakeFirst();
    if (!row) return null;
    const { finishedAt, ...run } = row;
    return { ...toRunWithSteps(run), finishedAt };
  }

  /** Written once: a second handler of the same failure (a retried relay) changes nothing. */
  async recordOutcome(runId: string, outcome: ErrorWorkflowOutcome): Promise<boolean> {
    const rows = await this.db
      .updateTable('runner.runs')
      .set({ error_workflow: JSON.stringify(outcome) })
      .where('id', '=', runId)
      .where('error_workflow', 'is', null)
      .returning('id')
      .execute();
    return rows.length > 0;
  }
}
