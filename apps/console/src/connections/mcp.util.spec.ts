import { describe, expect, it } from '@jest/globals';

import { mcpConfigOf, toolArguments } from './mcp.util';

describe("an MCP connection's config from the Connect form", () => {
  it('sends the URL alone when the token and headers are left empty', () => {
    expect(
      mcpConfigOf({
        url: ' https://mcp.example.com/mcp ',
        bearerToken: '  ',
        headers: [{ name: '', value: '' }],
      }),
    ).toEqual({ config: { url: 'https://mcp.example.com/mcp' } });
  });

  it('sends the token and the named headers', () => {
    expect(
      mcpConfigOf({
        url: 'https://mcp.example.com/mcp',
        bearerToken: ' t0ken ',
        headers: [
          { name: ' X-Api-Key ', value: 'k 1' },
          { name: '', value: '' },
          { name: 'X-Tenant', value: '' },
        ],
      }),
    ).toEqual({
      config: {
        url: 'https://mcp.example.com/mcp',
        bearerToken: 't0ken',
        headers: { 'X-Api-Key': 'k 1', 'X-Tenant': '' },
      },
    });
  });

  it('refuses a header value without a name, and a name given twice in any case', () => {
    expect(
      mcpConfigOf({ url: 'https://a.example/mcp', bearerToken: '', headers: [{ name: ' ', value: 'v' }] }),
    ).toEqual({ issue: { path: 'config.headers', message: 'Each header needs a name.' } });
    expect(
      mcpConfigOf({
        url: 'https://a.example/mcp',
        bearerToken: '',
        headers: [
          { name: 'X-Key', value: 'a' },
          { name: 'x-key', value: 'b' },
        ],
      }),
    ).toEqual({ issue: { path: 'config.headers', message: 'The header x-key is given twice.' } });
  });
});

describe("a tool's arguments", () => {
  it('names the properties of its input schema, the required ones marked', () => {
    expect(
      toolArguments({
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'number' } },
        required: ['query', 7],
      }),
    ).toEqual(['query (required)', 'limit']);
  });

  it('reads a schema of any shape without failing', () => {
    expect(toolArguments({ type: 'object' })).toEqual([]);
    expect(toolArguments({ properties: ['a'] })).toEqual([]);
    expect(toolArguments({ properties: null, required: 'a' })).toEqual([]);
    expect(toolArguments({ properties: { a: {} }, required: 'a' })).toEqual(['a']);
  });
});
