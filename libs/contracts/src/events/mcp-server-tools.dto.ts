import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, MaxLength } from 'class-validator';

import { AGENT_GRANTS_MAX } from '../agents/agent.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';

/** The most tools of one MCP server that are kept; those past it are listed as ignored. */
export const MCP_SERVER_TOOLS_MAX = 200;

/** A tool's description is cut at this length: it goes to the model on every call of a step. */
export const MCP_TOOL_DESCRIPTION_MAX_LENGTH = 2_000;

/** A tool whose input schema is larger than this, as JSON, is ignored. */
export const MCP_TOOL_INPUT_SCHEMA_MAX_BYTES = 16_384;

/** One tool of an MCP server, as its connection keeps it: what an agent's model is told of it. */
export class McpServerToolDto {
  @ApiProperty({ description: 'The name the server calls it by; `mcp__<name>` in an agent grant.' })
  name!: string;

  @ApiPropertyOptional({ description: "The server's human-readable title, when it gives one." })
  title?: string;

  @ApiProperty({ description: 'What the server says the tool does (may be empty).' })
  description!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema of its arguments.' })
  inputSchema!: Record<string, unknown>;
}

/** A tool the server listed that cannot be granted, and why. */
export class McpIgnoredToolDto {
  @ApiProperty()
  name!: string;

  @ApiProperty()
  reason!: string;
}

/** The tool list an MCP connection keeps (docs/mcp.md): read when connecting, refreshed on demand. */
export class McpServerToolsDto {
  @ApiProperty()
  connectionId!: string;

  @ApiProperty({ type: [McpServerToolDto] })
  tools!: McpServerToolDto[];

  @ApiProperty({
    type: [McpIgnoredToolDto],
    description: 'Tools the server listed that are not kept: a name MCP does not allow, too large, too many.',
  })
  ignored!: McpIgnoredToolDto[];

  @ApiProperty({ format: 'date-time', description: 'When the server last listed its tools.' })
  refreshedAt!: string;
}

/** `EventsSubjects.mcpTools`: the kept tool lists of these connections. */
export class McpServerToolsRequest {
  @IsArray()
  @ArrayMaxSize(AGENT_GRANTS_MAX)
  @IsString({ each: true })
  @MaxLength(MESSAGE_ID_MAX_LENGTH, { each: true })
  connectionIds!: string[];
}

/** The lists of the organization's MCP connections among those asked for; any other id is left out. */
export interface McpServerToolsReply {
  servers: McpServerToolsDto[];
}
