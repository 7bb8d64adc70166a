import { newId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ModelMessage } from 'ai';
import type { DataSource } from 'typeorm';

@Injectable()
export class ThreadRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new thread with its messages. */
  async create(
    thread: { organizationId: string; agentId: string; title: string; runId: string | null },
    messages: ModelMessage[],
  ): Promise<string> {
    const id = newId();
    // One statement: a step's thread costs one round trip, not a transaction of four.
    await this.dataSource.query(
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
}
