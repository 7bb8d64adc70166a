import { EventsSubjects, type IdRequest, type McpServerToolsRequest, type Principal } from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { McpToolsService } from './mcp-tools.service.js';

@Controller()
export class McpToolsHandler {
  constructor(private readonly mcpTools: McpToolsService) {}

  @Handles(EventsSubjects.mcpTools)
  async tools({ connectionIds }: McpServerToolsRequest, principal: Principal) {
    return { servers: await this.mcpTools.lists(principal.organizationId, connectionIds) };
  }

  @Handles(EventsSubjects.mcpToolsRefresh)
  refresh({ id }: IdRequest, principal: Principal) {
    return this.mcpTools.refresh(principal, id);
  }
}
