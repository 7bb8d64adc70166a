import { describe, expect, it } from '@jest/globals';

import type { McpServerTool } from '../api/browser-routes';
import { type Grant, mcpToolChoices, setAction, setApproval } from './agent-grants.util';

const grant: Grant = { connectionId: 'c1', integrationId: 'mcp', actions: [], approvals: [] };
const tool = (name: string): McpServerTool => ({ name, description: '', inputSchema: { type: 'object' } });

describe("an agent's app grant, picked", () => {
  it('adds an action once, makes it ask-first, and drops its ask-first flag with it', () => {
    const picked = setAction(setAction(grant, 'mcp__lookup', true), 'mcp__lookup', true);
    expect(picked.actions).toEqual(['mcp__lookup']);
    const asking = setApproval(setAction(picked, 'mcp__Send.Message', true), 'mcp__Send.Message', true);
    expect(asking).toEqual({
      ...grant,
      actions: ['mcp__lookup', 'mcp__Send.Message'],
      approvals: ['mcp__Send.Message'],
    });
    expect(setAction(asking, 'mcp__Send.Message', false)).toEqual({
      ...grant,
      actions: ['mcp__lookup'],
      approvals: [],
    });
    expect(setApproval(asking, 'mcp__Send.Message', false).approvals).toEqual([]);
  });
});

describe("an MCP connection's tools in the grant picker", () => {
  it('offers each kept tool as mcp__<name>, its case and dots kept', () => {
    expect(mcpToolChoices([tool('lookup'), tool('Send.Message')], [])).toEqual([
      { ref: 'mcp__lookup', tool: tool('lookup') },
      { ref: 'mcp__Send.Message', tool: tool('Send.Message') },
    ]);
  });

  it('keeps a granted tool the server no longer lists, so it can be dropped', () => {
    expect(mcpToolChoices([tool('lookup')], ['mcp__lookup', 'mcp__gone'])).toEqual([
      { ref: 'mcp__lookup', tool: tool('lookup') },
      { ref: 'mcp__gone' },
    ]);
  });
});
