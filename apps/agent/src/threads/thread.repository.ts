import type { Page } from '#common';
import { InjectKysely, isId, keysetPage, mapPage, newId, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { ModelMessage } from 'ai';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../agent.tables.js';
import type { StoredMessage } from '../usage/model-usage.util.js';
import {
  messageColumns,
  type MessageRole,
  type NewThread,
  type ThreadRecord,
  type ThreadWithMessages,
  toModelMessage,
  toThreadMessageRecord,
  toThreadRecord,
} from './thread.mapper.js';

/** The messages as rows `m`, one parameter per column however many there are. */
function unnestMessages(messages: readonly StoredMessage[]) {
  const { positions, roles, contents, usages } = messageColumns(messages);
  return sql<{ position: number; role: MessageRole; content: string; usage: string | null }>`unnest(
    ${positions}::int[], ${roles}::text[], ${contents}::text[], ${usages}::text[])`.as<'m'>(
    sql`m(position, role, content, usage)`,
  );
}

@Injectable()
export class ThreadRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** Runs `work` in one transaction: what it saves with the thread's methods and others' is kept together. */
  transaction<T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** A new thread with its messages; answers its id. */
  async create(
    thread: NewThread,
    messages: readonly StoredMessage[],
    db: Kysely<DB> = this.db,
  ): Promise<string> {
    const id = thread.id ?? newId();
    // One statement: a step's thread costs one round trip, not a transaction of four.
    await db
      .with('thread', (db) =>
        db
          .insertInto('agent.threads')
          .values({
            id,
            organization_id: thread.organizationId,
            agent_id: thread.agentId,
            title: thread.title,
            run_id: thread.runId,
          })
          .returning('id'),
      )
      .insertInto('agent.messages')
      .columns(['thread_id', 'position', 'role', 'content', 'usage'])
      .expression((db) =>
        db
          .selectFrom(['thread', unnestMessages(messages)])
          .select((eb) => [
            'thread.id',
            'm.position',
            'm.role',
            eb.cast('m.content', 'jsonb').as('content'),
            eb.cast('m.usage', 'jsonb').as('usage'),
          ]),
      )
      .execute();
    return id;
  }

  /**
   * Adds messages at the end of a thread, in one statement. Positions continue after the thread's
   * last message, so two appends never take the same place (the second one fails on the key).
   */
  async append(
    threadId: string,
    messages: readonly StoredMessage[],
    db: Kysely<DB> = this.db,
  ): Promise<void> {
    if (messages.length === 0) return;
    await db
      .with('last', (db) =>
        db
          .selectFrom('agent.messages')
          .select((eb) => eb.fn.coalesce(eb.fn.max('position'), eb.lit(-1)).as('position'))
          .where('thread_id', '=', threadId),
      )
      .with('touched', (db) =>
        db
          .updateTable('agent.threads')
          .set({ updated_at: sql`now()` })
          .where('id', '=', threadId),
      )
      .insertInto('agent.messages')
      .columns(['thread_id', 'position', 'role', 'content', 'usage'])
      .expression((db) =>
        db
          .selectFrom(['last', unnestMessages(messages)])
          .select((eb) => [
            eb.val(threadId).as('thread_id'),
            eb(eb('last.position', '+', 1), '+', eb.ref('m.position')).as('position'),
            'm.role',
            eb.cast('m.content', 'jsonb').as('content'),
            eb.cast('m.usage', 'jsonb').as('usage'),
          ]),
      )
      .execute();
  }

  /** A thread's messages as the model reads them, in order. */
  async messages(threadId: string): Promise<ModelMessage[]> {
    const rows = await this.db
      .selectFrom('agent.messages')
      .select(['role', 'content'])
      .where('thread_id', '=', threadId)
      .orderBy('position')
      .execute();
    return rows.map(toModelMessage);
  }

  /** The agent's threads, newest first (ids are time-ordered). */
  async list(organizationId: string, agentId: string, page: PageRequest): Promise<Page<ThreadRecord>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('agent.threads')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('agent_id', '=', agentId);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toThreadRecord);
  }

  async get(organizationId: string, agentId: string, threadId: string): Promise<ThreadWithMessages | null> {
    if (!isId(threadId)) return null;
    const row = await this.db
      .selectFrom('agent.threads')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('agent_id', '=', agentId)
      .where('id', '=', threadId)
      .executeTakeFirst();
    if (!row) return null;
    const messages = await this.db
      .selectFrom('agent.messages')
      .select(['role', 'content', 'usage', 'created_at'])
      .where('thread_id', '=', threadId)
      .orderBy('position')
      .execute();
    return { ...toThreadRecord(row), messages: messages.map(toThreadMessageRecord) };
  }
}
