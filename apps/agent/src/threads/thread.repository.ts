import { DEFAULT_PAGE_SIZE, type Page } from '#common';
import type { ThreadDetailDto, ThreadDto, ThreadMessageDto } from '#contracts';
import { decodeCursor, encodeCursor, isId, newId, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ModelMessage } from 'ai';
import type { DataSource, EntityManager } from 'typeorm';

@Injectable()
export class ThreadRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new thread with its messages; `id` when the caller had to name it before (a chat's first turn). */
  async create(
    thread: { id?: string; organizationId: string; agentId: string; title: string; runId: string | null },
    messages: ModelMessage[],
    runner: DataSource | EntityManager = this.dataSource,
  ): Promise<string> {
    const id = thread.id ?? newId();
    // One statement: a step's thread costs one round trip, not a transaction of four.
    await runner.query(
      `WITH thread AS (
         INSERT INTO agent.threads (id, organization_id, agent_id, title, run_id)
         VALUES ($1, $2, $3, $4, $5)
         RETURNING id)
       INSERT INTO agent.messages (thread_id, position, role, content)
       SELECT thread.id, m.position, m.role, m.content::jsonb
         FROM thread, unnest($6::int[], $7::text[], $8::text[]) AS m(position, role, content)`,
      [
        id,
        thread.organizationId,
        thread.agentId,
        thread.title,
        thread.runId,
        messages.map((_, index) => index),
        messages.map((message) => message.role),
        messages.map((message) => JSON.stringify(message.content)),
      ],
    );
    return id;
  }

  /**
   * Adds messages at the end of a thread, in one statement. Positions continue after the thread's
   * last message, so two appends never take the same place (the second one fails on the key).
   */
  async append(
    threadId: string,
    messages: ModelMessage[],
    runner: DataSource | EntityManager = this.dataSource,
  ): Promise<void> {
    if (messages.length === 0) return;
    await runner.query(
      `WITH last AS (
         SELECT coalesce(max(position), -1) AS position FROM agent.messages WHERE thread_id = $1
       ), touched AS (
         UPDATE agent.threads SET updated_at = now() WHERE id = $1
       )
       INSERT INTO agent.messages (thread_id, position, role, content)
       SELECT $1, last.position + 1 + m.position, m.role, m.content::jsonb
         FROM last, unnest($2::int[], $3::text[], $4::text[]) AS m(position, role, content)`,
      [
        threadId,
        messages.map((_, index) => index),
        messages.map((message) => message.role),
        messages.map((message) => JSON.stringify(message.content)),
      ],
    );
  }

  /** A thread's messages as the model reads them, in order. */
  async messages(threadId: string): Promise<ModelMessage[]> {
    const rows: Array<{ role: ModelMessage['role']; content: unknown }> = await this.dataSource.query(
      `SELECT role, content FROM agent.messages WHERE thread_id = $1 ORDER BY position`,
      [threadId],
    );
    return rows.map((row) => ({ role: row.role, content: row.content }) as ModelMessage);
  }

  /** The agent's threads, newest first (ids are time-ordered). */
  async list(organizationId: string, agentId: string, page: PageRequest): Promise<Page<ThreadDto>> {
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    const rows: ThreadRow[] = await this.dataSource.query(
      `SELECT * FROM agent.threads
        WHERE organization_id = $1 AND agent_id = $2 AND ($3::uuid IS NULL OR id < $3::uuid)
        ORDER BY id DESC LIMIT $4`,
      [organizationId, agentId, page.cursor === undefined ? null : decodeCursor(page.cursor), limit + 1],
    );
    const data = rows.slice(0, limit).map(toThreadDto);
    const last = data.at(-1);
    return { data, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
  }

  async get(organizationId: string, agentId: string, threadId: string): Promise<ThreadDetailDto | null> {
    if (!isId(threadId)) return null;
    const [row]: ThreadRow[] = await this.dataSource.query(
      `SELECT * FROM agent.threads WHERE organization_id = $1 AND agent_id = $2 AND id = $3`,
      [organizationId, agentId, threadId],
    );
    if (!row) return null;
    const messages: Array<{ role: ThreadMessageDto['role']; content: unknown; created_at: Date }> =
      await this.dataSource.query(
        `SELECT role, content, created_at FROM agent.messages WHERE thread_id = $1 ORDER BY position`,
        [threadId],
      );
    return {
      ...toThreadDto(row),
      messages: messages.map((message) => ({
        role: message.role,
        content: message.content,
        createdAt: message.created_at.toISOString(),
      })),
    };
  }
}

interface ThreadRow {
  id: string;
  agent_id: string;
  title: string;
  run_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toThreadDto = (row: ThreadRow): ThreadDto => ({
  id: row.id,
  agentId: row.agent_id,
  title: row.title,
  runId: row.run_id,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
