import type { Page } from '#common';
import {
  type AuditCaller,
  InjectKysely,
  isId,
  keysetPage,
  mapPage,
  newId,
  type PageRequest,
} from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/agent-audit.js';
import type { DB } from '../agent.tables.js';
import {
  type AgentFields,
  type AgentRecord,
  changedFields,
  toAgentColumns,
  toAgentRecord,
} from './agent.mapper.js';

const UNIQUE_VIOLATION = '23505';

export class AgentNameTakenError extends Error {}

/** A name another agent of the organization has is refused by the unique index. */
async function uniqueName<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new AgentNameTakenError();
    throw error;
  }
}

@Injectable()
export class AgentRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Serializes agent creation per organization, so two creates at the plan limit cannot both pass. */
  lockedFor<T>(organizationId: string, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .selectNoFrom((eb) =>
          eb
            .fn('pg_advisory_xact_lock', [eb.fn('hashtext', [eb.val(`agents:${organizationId}`)])])
            .as('locked'),
        )
        .execute();
      return work(trx);
    });
  }

  async count(organizationId: string, db: Kysely<DB> = this.db): Promise<number> {
    const { count } = await db
      .selectFrom('agent.agents')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return count;
  }

  async insert(
    organizationId: string,
    fields: AgentFields,
    trx: Kysely<DB>,
    caller: AuditCaller,
  ): Promise<AgentRecord> {
    const row = await uniqueName(
      trx
        .insertInto('agent.agents')
        .values({ id: newId(), organization_id: organizationId, ...toAgentColumns(fields) })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
    await audit.record(trx, caller, {
      action: 'agent.created',
      resource: { type: 'agent', id: row.id, name: row.name },
    });
    return toAgentRecord(row);
  }

  async find(organizationId: string, id: string): Promise<AgentRecord | null> {
    const row = await this.db
      .selectFrom('agent.agents')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toAgentRecord(row) : null;
  }

  /** The ids among `ids` of the organization's agents. */
  async existing(organizationId: string, ids: string[]): Promise<string[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows = await this.db
      .selectFrom('agent.agents')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', (eb) => eb.fn.any(eb.val(wanted)))
      .execute();
    return rows.map((row) => row.id);
  }

  async list(organizationId: string, page: PageRequest): Promise<Page<AgentRecord>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('agent.agents')
        .selectAll()
        .where('organization_id', '=', organizationId);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toAgentRecord);
  }

  /** Null when the agent is gone. An update that changes nothing writes nothing: `updatedAt` stays. */
  async update(
    agent: AgentRecord,
    changes: Partial<AgentFields>,
    caller: AuditCaller,
  ): Promise<AgentRecord | null> {
    const changed = changedFields(agent, changes);
    if (Object.keys(changed).length === 0) return agent;
    const row = await uniqueName(
      audit.recording(
        this.db,
        caller,
        (trx) =>
          trx
            .updateTable('agent.agents')
            .set({ ...toAgentColumns(changed), updated_at: sql`now()` })
            .where('organization_id', '=', agent.organizationId)
            .where('id', '=', agent.id)
            .returningAll()
            .executeTakeFirst(),
        (updated) => ({
          action: 'agent.updated',
          resource: { type: 'agent', id: updated.id, name: updated.name },
          details: { fields: Object.keys(changed) },
        }),
      ),
    );
    return row ? toAgentRecord(row) : null;
  }

  async delete(organizationId: string, id: string, caller: AuditCaller): Promise<boolean> {
    const deleted = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .deleteFrom('agent.agents')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .returning(['id', 'name'])
          .executeTakeFirst(),
      (row) => ({ action: 'agent.deleted', resource: { type: 'agent', id: row.id, name: row.name } }),
    );
    return deleted !== undefined;
  }
}
