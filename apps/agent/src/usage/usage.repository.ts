import type { ModelCallUsage } from '#contracts';
import { type AuditCaller, InjectKysely, newId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../agent.tables.js';
import { audit } from '../audit/agent-audit.js';
import {
  type NewModelCall,
  toModelCallRow,
  toModelCallUsage,
  toUsageRow,
  type UsageRow,
} from './usage.mapper.js';

@Injectable()
export class UsageRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Records model calls, in one statement. */
  async record(calls: readonly NewModelCall[], db: Kysely<DB> = this.db): Promise<void> {
    if (calls.length === 0) return;
    await db
      .insertInto('agent.model_calls')
      .values(calls.map((call) => toModelCallRow(call, newId())))
      .execute();
  }

  /** The model calls of a thread (an Agent step's conversation), in order. */
  async forThread(threadId: string): Promise<ModelCallUsage[]> {
    const rows = await this.db
      .selectFrom('agent.model_calls')
      .select([
        'provider',
        'model',
        'input_tokens',
        'output_tokens',
        'reasoning_tokens',
        'cached_input_tokens',
      ])
      .where('thread_id', '=', threadId)
      .orderBy('id')
      .execute();
    return rows.map(toModelCallUsage);
  }

  /** The organization's usage from `start` to `end`, by agent and model, most tokens first. */
  async byAgentAndModel(organizationId: string, start: Date, end: Date): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('agent.model_calls')
      .select((eb) => [
        'agent_id',
        // The name the agent had at its last call of the month.
        sql<string>`(array_agg(agent_name ORDER BY id DESC))[1]`.as('agent_name'),
        'provider',
        'model',
        eb.fn.countAll<string>().as('calls'),
        eb.fn.sum<string>('input_tokens').as('input_tokens'),
        eb.fn.sum<string>('output_tokens').as('output_tokens'),
        eb.fn.sum<string>('reasoning_tokens').as('reasoning_tokens'),
        eb.fn.sum<string>('cached_input_tokens').as('cached_input_tokens'),
      ])
      .where('organization_id', '=', organizationId)
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy(['agent_id', 'provider', 'model'])
      .orderBy(sql`sum(input_tokens + output_tokens)`, 'desc')
      .orderBy('agent_id')
      .orderBy('model')
      .execute();
    return rows.map(toUsageRow);
  }

  /**
   * Tokens (input + output) used since `start`: the organization's, and the agent's. One statement,
   * read before each round of an Agent step's model calls.
   */
  async tokensSince(
    organizationId: string,
    agentId: string | null,
    start: Date,
  ): Promise<{ organization: number; agent: number }> {
    const row = await this.db
      .selectFrom('agent.model_calls')
      .select([
        sql<string>`coalesce(sum(input_tokens + output_tokens), 0)`.as('organization'),
        sql<string>`coalesce(sum(input_tokens + output_tokens) FILTER (WHERE agent_id = ${agentId}), 0)`.as(
          'agent',
        ),
      ])
      .where('organization_id', '=', organizationId)
      .where('created_at', '>=', start)
      .executeTakeFirstOrThrow();
    return { organization: Number(row.organization), agent: Number(row.agent) };
  }

  async budget(organizationId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('agent.budgets')
      .select('monthly_token_budget')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row ? Number(row.monthly_token_budget) : null;
  }

  /**
   * Sets the organization's monthly token budget (null removes it), recorded as `budget.changed` in
   * the same transaction.
   */
  async setBudget(caller: AuditCaller, budget: number | null): Promise<void> {
    const organizationId = caller.organizationId;
    await audit.recording(
      this.db,
      caller,
      async (trx) => {
        if (budget === null) {
          await trx.deleteFrom('agent.budgets').where('organization_id', '=', organizationId).execute();
        } else {
          await trx
            .insertInto('agent.budgets')
            .values({ organization_id: organizationId, monthly_token_budget: budget })
            .onConflict((oc) =>
              oc
                .column('organization_id')
                .doUpdateSet({ monthly_token_budget: budget, updated_at: sql`now()` }),
            )
            .execute();
        }
        return true;
      },
      () => ({
        // Like the plan, the organization's budget is named by what it is, not by the organization's id.
        action: 'budget.changed',
        resource: { type: 'budget', id: 'organization', name: 'organization' },
        // Named `budget`: a detail key naming a token is dropped as a likely secret (`safeDetails`).
        details: { budget },
      }),
    );
  }
}
