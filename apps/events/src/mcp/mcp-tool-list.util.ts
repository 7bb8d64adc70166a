import {
  MCP_SERVER_TOOLS_MAX,
  MCP_TOOL_DESCRIPTION_MAX_LENGTH,
  MCP_TOOL_INPUT_SCHEMA_MAX_BYTES,
  MCP_TOOL_NAME_PATTERN,
  type McpIgnoredToolDto,
  type McpServerToolDto,
} from '#contracts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** Ignored tools named at most: a server listing thousands is told about in a line, not stored whole. */
const IGNORED_MAX = 50;
const IGNORED_NAME_MAX_LENGTH = 200;

export interface KeptTools {
  tools: McpServerToolDto[];
  ignored: McpIgnoredToolDto[];
}

/**
 * What a connection keeps of a server's list: each tool an agent may be granted, its description
 * cut to length, in the server's order; and the tools it cannot keep, each with the reason (a name
 * MCP does not allow cannot be a ref, a large schema would go to the model with every call).
 */
export function keptTools(listed: readonly Tool[]): KeptTools {
  const tools: McpServerToolDto[] = [];
  const ignored: McpIgnoredToolDto[] = [];
  const seen = new Set<string>();
  const ignore = (name: string, reason: string) => {
    if (ignored.length < IGNORED_MAX) ignored.push({ name: name.slice(0, IGNORED_NAME_MAX_LENGTH), reason });
  };
  for (const tool of listed) {
    if (!MCP_TOOL_NAME_PATTERN.test(tool.name)) {
      ignore(tool.name, 'MCP tool names are 1 to 128 letters, digits, `_`, `-` and `.`');
      continue;
    }
    if (seen.has(tool.name)) {
      ignore(tool.name, 'the server lists this name twice; the first is kept');
      continue;
    }
    seen.add(tool.name);
    const schemaBytes = Buffer.byteLength(JSON.stringify(tool.inputSchema));
    if (schemaBytes > MCP_TOOL_INPUT_SCHEMA_MAX_BYTES) {
      ignore(
        tool.name,
        `its input schema is ${schemaBytes} bytes of JSON; at most ${MCP_TOOL_INPUT_SCHEMA_MAX_BYTES}`,
      );
      continue;
    }
    if (tools.length >= MCP_SERVER_TOOLS_MAX) {
      ignore(tool.name, `a connection keeps the first ${MCP_SERVER_TOOLS_MAX} tools`);
      continue;
    }
    const title = tool.title ?? tool.annotations?.title;
    tools.push({
      name: tool.name,
      ...(title ? { title } : {}),
      description: cut(tool.description ?? '', MCP_TOOL_DESCRIPTION_MAX_LENGTH),
      inputSchema: tool.inputSchema as Record<string, unknown>,
    });
  }
  return { tools, ignored };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
