import { newId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ModelMessage } from 'ai';
import type { DataSource } from 'typeorm';

@Injectable()
export class ThreadRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new thread with its messages, in one transaction. */
  async create(
    thread: { organizationId: string; agentId: string; title: string; runId: string | null },
    messages: ModelMessage[],
  ): Promise<string> {
    const id = newId();
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO agent.threads (id, organization_id, agent_id, title, run_id) VALUES ($1, $2, $3, $4, $5)`,
        [id, thread.organizationId, thread.agentId, thread.title, thread.runId],
      );
      if (messages.length === 0) return;
      await manager.query(
        `INSERT INTO agent.messages (thread_id, position, role, content)
         SELECT $1, m.position, m.role, m.content::jsonb
           FROM unnest($2::int[], $3::text[], $4::text[]) AS m(position, role, content)`,
        [
          id,
          messages.map((_, index) => index),
          messages.map((message) => message.role),
          messages.map((message) => JSON.stringify(message.content)),
        ],
      );
    });
    return id;
  }
}
