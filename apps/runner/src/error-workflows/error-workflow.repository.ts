import type { ErrorWorkflowOutcome } from '#contracts';
import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../runner.tables.js';

/** Records on a failed run what starting its error workflow came to. */
@Injectable()
export class ErrorWorkflowRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Written once: a second handling of the same failure (a retried ending) changes nothing. */
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
