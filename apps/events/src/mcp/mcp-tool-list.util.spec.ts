import {
  MCP_SERVER_TOOLS_MAX,
  MCP_TOOL_DESCRIPTION_MAX_LENGTH,
  MCP_TOOL_INPUT_SCHEMA_MAX_BYTES,
} from '#contracts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

import { keptTools } from './mcp-tool-list.util.js';

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
});

describe('keptTools', () => {
  it("keeps each grantable tool in the server's order, with its title and its description", () => {
    expect(
      keptTools([
        tool('search', { description: 'Searches.', title: 'Search' }),
        tool('Send.Message', { annotations: { title: 'Send a message' } }),
      ]),
    ).toEqual({
      tools: [
        {
          name: 'search',
          title: 'Search',
          description: 'Searches.',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        },
        {
          name: 'Send.Message',
          title: 'Send a message',
          description: '',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        },
      ],
      ignored: [],
    });
  });

  it('ignores, with the reason, names MCP does not allow, a name listed twice and a schema too large', () => {
    const large = { type: 'object' as const, description: 'x'.repeat(MCP_TOOL_INPUT_SCHEMA_MAX_BYTES) };
    const { tools, ignored } = keptTools([
      tool('bad name'),
      tool('twice', { description: 'first' }),
      tool('twice', { description: 'second' }),
      tool('large', { inputSchema: large }),
    ]);
    expect(tools.map(({ name, description }) => [name, description])).toEqual([['twice', 'first']]);
    expect(ignored).toEqual([
      { name: 'bad name', reason: expect.stringMatching(/letters, digits/) },
      { name: 'twice', reason: expect.stringMatching(/twice/) },
      {
        name: 'large',
        reason: expect.stringMatching(new RegExp(`at most ${MCP_TOOL_INPUT_SCHEMA_MAX_BYTES}`)),
      },
    ]);
  });

  it('cuts long descriptions and keeps the first tools up to the limit', () => {
    const many = Array.from({ length: MCP_SERVER_TOOLS_MAX + 2 }, (_, index) => tool(`t${index}`));
    const { tools, ignored } = keptTools([tool('long', { description: 'd'.repeat(10_000) }), ...many]);
    expect(tools).toHaveLength(MCP_SERVER_TOOLS_MAX);
    expect(tools[0]!.description).toHaveLength(MCP_TOOL_DESCRIPTION_MAX_LENGTH);
    expect(tools[0]!.description.endsWith('…')).toBe(true);
    expect(ignored.map((entry) => entry.name)).toEqual([
      `t${MCP_SERVER_TOOLS_MAX - 1}`,
      `t${MCP_SERVER_TOOLS_MAX}`,
      `t${MCP_SERVER_TOOLS_MAX + 1}`,
    ]);
  });
});
