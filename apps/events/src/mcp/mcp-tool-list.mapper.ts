import type { McpIgnoredToolDto, McpServerToolDto } from '#contracts';
import type { Selectable } from 'kysely';

import type { EventsMcpToolLists } from '../events.tables.js';

/** The tools an MCP connection keeps, as last listed by its server. */
export interface McpToolList {
  connectionId: string;
  organizationId: string;
  tools: McpServerToolDto[];
  ignored: McpIgnoredToolDto[];
  refreshedAt: Date;
}

export const toMcpToolList = (row: Selectable<EventsMcpToolLists>): McpToolList => ({
  connectionId: row.connection_id,
  organizationId: row.organization_id,
  tools: row.tools,
  ignored: row.ignored,
  refreshedAt: row.refreshed_at,
});

export const toMcpToolListColumns = (list: McpToolList) => ({
  connection_id: list.connectionId,
  organization_id: list.organizationId,
  tools: JSON.stringify(list.tools),
  ignored: JSON.stringify(list.ignored),
  refreshed_at: list.refreshedAt,
});
