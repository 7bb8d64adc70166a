import { actionConnectionIssues } from './diagram-apps.js';
import {
  ACTION_REF_PATTERN,
  hasAction,
  isMcpToolRef,
  MCP_TOOL_NAME_PATTERN,
  mcpToolRef,
  parseActionRef,
} from './integrations.js';

describe('mcp__<tool> refs', () => {
  it("carry the tool's name as its server spells it: either case, digits, _, - and .", () => {
    expect(parseActionRef('mcp__search')).toEqual({ provider: 'mcp', action: 'search' });
    expect(parseActionRef('mcp__Send.Message')).toEqual({ provider: 'mcp', action: 'Send.Message' });
    expect(parseActionRef('mcp__drop-table_v2')).toEqual({ provider: 'mcp', action: 'drop-table_v2' });
    // Everything after the first mcp__ is the tool, `__` included.
    expect(parseActionRef('mcp__files__read')).toEqual({ provider: 'mcp', action: 'files__read' });
    expect(parseActionRef(mcpToolRef('x'.repeat(128)))).toEqual({ provider: 'mcp', action: 'x'.repeat(128) });
  });

  it('refuse a name MCP does not allow', () => {
    for (const ref of [
      'mcp__',
      'mcp__bad name',
      'mcp__a/b',
      'mcp__é',
      `mcp__${'x'.repeat(129)}`,
      'MCP__search',
    ]) {
      expect(parseActionRef(ref)).toBeNull();
      expect(ACTION_REF_PATTERN.test(ref)).toBe(false);
    }
    expect(MCP_TOOL_NAME_PATTERN.test('Send.Message')).toBe(true);
  });

  it('are told apart from built-in actions, which stay as they were', () => {
    expect(isMcpToolRef('mcp__search')).toBe(true);
    expect(isMcpToolRef('http__request')).toBe(false);
    expect(parseActionRef('http__request')).toEqual({ provider: 'http', action: 'request' });
    for (const ref of ['http__request', 'slack__post_message', 'mcp__Send.Message']) {
      expect(ACTION_REF_PATTERN.test(ref)).toBe(true);
    }
    expect(ACTION_REF_PATTERN.test('HTTP__request')).toBe(false);
    // No tool is built in: a server's list says which exist.
    expect(hasAction('mcp', 'search')).toBe(false);
  });

  it('are not actions of a workflow: an Action node naming one is refused with where it goes instead', () => {
    const issues = actionConnectionIssues(
      {
        nodes: [
          { id: 't', data: { type: 'trigger', properties: { kind: 'manual' } } },
          { id: 'call', data: { type: 'action', properties: { action: 'mcp__search', input: {} } } },
        ],
        edges: [{ id: 't-call', source: 't', target: 'call' }],
      },
      [{ id: 'conn-mcp', integrationId: 'mcp' }],
    );
    expect(issues).toEqual([
      expect.objectContaining({ nodeId: 'call', message: expect.stringMatching(/grant it to an agent/) }),
    ]);
  });
});
