import { InjectKysely, isId } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import type { DB } from '../agent.tables.js';
import type { AssistantTurnRecord } from './assistant-history.js';

/** A member's conversation with the assistant. */
export interface AssistantConversation {
  id: string;
  organizationId: string;
  userId: string;
  workflowId: string | null;
  turns: AssistantTurnRecord[];
}

@Injectable()
export class AssistantConversationRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** The member's own conversation; another member's is as good as absent. */
  async find(organizationId: string, userId: string, id: string): Promise<AssistantConversation | null> {
    if (!isId(id)) return null;
    const row = await this.db
      .selectFrom('agent.assistant_conversations')
      .select(['id', 'organization_id', 'user_id', 'workflow_id', 'turns'])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row
      ? {
          id: row.id,
          organizationId: row.organization_id,
          userId: row.user_id,
          workflowId: row.workflow_id,
          turns: row.turns as unknown as AssistantTurnRecord[],
        }
      : null;
  }

  /** Creates the conversation or replaces its turns; never one of another member's. */
  async save(conversation: AssistantConversation): Promise<void> {
    const turns = JSON.stringify(conversation.turns);
    await this.db
      .insertInto('agent.assistant_conversations')
      .values({
        id: conversation.id,
        organization_id: conversation.organizationId,
        user_id: conversation.userId,
        workflow_id: conversation.workflowId,
        turns,
      })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({ turns, workflow_id: conversation.workflowId, updated_at: sql`now()` })
          .where('agent.assistant_conversations.organization_id', '=', conversation.organizationId)
          .where('agent.assistant_conversations.user_id', '=', conversation.userId),
      )
      .execute();
  }
}
