import { DomainException } from '#common';
import type { McpServerToolsDto, Principal } from '#contracts';
import { isId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { ConnectionsService } from '../connections/connections.service.js';
import { ConnectionRefused } from '../integrations/app-provider.js';
import { AppProviders } from '../integrations/app-providers.js';
import type { McpToolList } from './mcp-tool-list.mapper.js';
import { McpToolListRepository } from './mcp-tool-list.repository.js';
import { keptTools } from './mcp-tool-list.util.js';

const toMcpServerToolsDto = (list: McpToolList): McpServerToolsDto => ({
  connectionId: list.connectionId,
  tools: list.tools,
  ignored: list.ignored,
  refreshedAt: list.refreshedAt.toISOString(),
});

/** The tool lists MCP connections keep (docs/mcp.md): read for agents, refreshed on demand. */
@Injectable()
export class McpToolsService {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly providers: AppProviders,
    private readonly toolLists: McpToolListRepository,
  ) {}

  /** The organization's lists among these connections; any other id (another app's, unknown) is left out. */
  async lists(organizationId: string, connectionIds: readonly string[]): Promise<McpServerToolsDto[]> {
    const ids = [...new Set(connectionIds.filter(isId))];
    return (await this.toolLists.find(organizationId, ids)).map(toMcpServerToolsDto);
  }

  /**
   * Asks the server for its tools now and keeps them; any member may. A server that cannot be
   * reached turns its connection unhealthy, and one that answers turns it healthy again.
   */
  async refresh(principal: Principal, id: string): Promise<McpServerToolsDto> {
    const connection = await this.connections.openOwned(principal.organizationId, id);
    if (connection.integrationId !== 'mcp') {
      throw DomainException.invalidRequest([
        { path: 'id', message: `a ${connection.integrationId} connection has no tools to list` },
      ]);
    }
    const refreshedAt = new Date();
    let listed;
    try {
      listed = await this.providers.mcp.listTools(connection);
    } catch (error) {
      if (error instanceof ConnectionRefused) await this.connections.setHealth(connection, 'unhealthy');
      throw error;
    }
    const list: McpToolList = {
      connectionId: connection.id,
      organizationId: connection.organizationId,
      ...keptTools(listed),
      refreshedAt,
    };
    await this.toolLists.save(list);
    await this.connections.setHealth(connection, 'healthy');
    return toMcpServerToolsDto(list);
  }
}
