import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import type { DB } from '../events.tables.js';
import { type McpToolList, toMcpToolList, toMcpToolListColumns } from './mcp-tool-list.mapper.js';

/** The connection was deleted while its tools were being listed. */
const FOREIGN_KEY_VIOLATION = '23503';

@Injectable()
export class McpToolListRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /**
   * Replaces the connection's list, unless a later listing is already kept: a refresh and a call
   * that heard the list change may finish in either order. Nothing is kept for a connection deleted
   * meanwhile.
   */
  async save(list: McpToolList): Promise<void> {
    try {
      await this.db
        .insertInto('events.mcp_tool_lists')
        .values(toMcpToolListColumns(list))
        .onConflict((oc) =>
          oc
            .column('connection_id')
            .doUpdateSet((eb) => ({
              tools: eb.ref('excluded.tools'),
              ignored: eb.ref('excluded.ignored'),
              refreshed_at: eb.ref('excluded.refreshed_at'),
            }))
            .where('events.mcp_tool_lists.refreshed_at', '<=', (eb) => eb.ref('excluded.refreshed_at')),
        )
        .execute();
    } catch (error) {
      if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
    }
  }

  /** The organization's lists among these connections. */
  async find(organizationId: string, connectionIds: readonly string[]): Promise<McpToolList[]> {
    if (connectionIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('events.mcp_tool_lists')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('connection_id', 'in', connectionIds)
      .execute();
    return rows.map(toMcpToolList);
  }
}
