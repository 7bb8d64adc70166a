import { describe, expect, it } from '@jest/globals';

import {
  asDiagram,
  type AssistantMessage,
  type AssistantPart,
  conversationOf,
  formatTokens,
  isToolPart,
  offeredProposal,
  proposalsOf,
  toolLine,
  totalUsage,
} from './assistant-messages.util';

const valid = { nodes: [{ id: 't', data: { type: 'trigger', properties: {} } }], edges: [] };
const invalid = { nodes: [{ id: 'w', data: { type: 'delay', properties: {} } }], edges: [] };

const proposal = (
  id: string,
  name: string,
  outcome: { valid: boolean; diagram: unknown; issues?: unknown[] } | 'checking' | 'refused',
): AssistantPart => {
  const input = { name, diagram: outcome === 'checking' || outcome === 'refused' ? valid : outcome.diagram };
  if (outcome === 'checking') {
    return { type: 'tool-propose_workflow', toolCallId: id, state: 'input-available', input };
  }
  if (outcome === 'refused') {
    return {
      type: 'tool-propose_workflow',
      toolCallId: id,
      state: 'output-error',
      input,
      errorText: 'Too many proposals that would not publish.',
    };
  }
  return {
    type: 'tool-propose_workflow',
    toolCallId: id,
    state: 'output-available',
    input: { ...input, explanation: 'Why.' },
    output: { issues: [], ...outcome },
  };
};

const answer = (id: string, parts: AssistantPart[], metadata?: AssistantMessage['metadata']) =>
  ({ id, role: 'assistant', parts, ...(metadata ? { metadata } : {}) }) as AssistantMessage;

const question = (id: string, text: string): AssistantMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

describe("the assistant panel's reading of the answers", () => {
  it('continues the conversation the newest answer names, and adds up the turns’ tokens', () => {
    const messages = [
      question('q1', 'Hi'),
      answer('a1', [], {
        conversationId: 'c-1',
        usage: { inputTokens: 40, outputTokens: 20, totalTokens: 60 },
      }),
      question('q2', 'More'),
      answer('a2', [], {
        conversationId: 'c-1',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      }),
      // An answer still streaming has its conversation but not yet its tokens.
      answer('a3', [], { conversationId: 'c-1' }),
    ];
    expect(conversationOf(messages)).toBe('c-1');
    expect(conversationOf([question('q1', 'Hi')])).toBeUndefined();
    const total = totalUsage(messages);
    expect(total).toEqual({ inputTokens: 50, outputTokens: 25, totalTokens: 75 });
    expect(formatTokens(total)).toBe('75 tokens (50 in, 25 out)');
  });

  it('numbers every proposal and offers the last valid one of the newest turn that has one', () => {
    const messages = [
      answer('a1', [proposal('p1', 'First', { valid: true, diagram: valid })]),
      answer('a2', [
        proposal('p2', 'Second', {
          valid: false,
          diagram: invalid,
          issues: [{ path: 'nodes', message: 'The diagram has no trigger node.', nodeId: 'w' }],
        }),
        proposal('p3', 'Third', { valid: true, diagram: valid }),
        proposal('p4', 'Fourth', { valid: false, diagram: invalid }),
      ]),
    ];

    const proposals = proposalsOf(messages);

    expect(proposals.map((entry) => [entry.number, entry.name, entry.status])).toEqual([
      [1, 'First', 'valid'],
      [2, 'Second', 'invalid'],
      [3, 'Third', 'valid'],
      [4, 'Fourth', 'invalid'],
    ]);
    expect(proposals[1]!.issues).toEqual([
      { path: 'nodes', message: 'The diagram has no trigger node.', nodeId: 'w' },
    ]);
    expect(proposals[2]!.explanation).toBe('Why.');
    expect(offeredProposal(proposals)?.id).toBe('p3');
  });

  it('offers an invalid proposal, as not valid, when its turn has no valid one; not one still checked', () => {
    const invalidOnly = proposalsOf([
      answer('a1', [proposal('p1', 'Ok', { valid: true, diagram: valid })]),
      answer('a2', [proposal('p2', 'Broken', { valid: false, diagram: invalid })]),
    ]);
    expect(offeredProposal(invalidOnly)?.id).toBe('p2');

    const checking = proposalsOf([
      answer('a1', [proposal('p1', 'Ok', { valid: true, diagram: valid })]),
      answer('a2', [proposal('p2', 'Streaming', 'checking')]),
    ]);
    expect(checking[1]!.status).toBe('checking');
    expect(offeredProposal(checking)?.id).toBe('p1');

    const refused = proposalsOf([answer('a1', [proposal('p1', 'No', 'refused')])]);
    expect(refused[0]).toMatchObject({
      status: 'refused',
      error: 'Too many proposals that would not publish.',
    });
    expect(offeredProposal([])).toBeUndefined();
  });

  it('draws only what is a diagram', () => {
    expect(asDiagram(valid)).toBe(valid);
    expect(asDiagram({ nodes: 'many', edges: [] })).toBeNull();
    expect(asDiagram({ nodes: [{ id: 'a', data: { type: 'delay' } }], edges: [] })).toBeNull();
    expect(asDiagram({ nodes: [], edges: [{ id: 'e', source: 'a' }] })).toBeNull();
    expect(asDiagram(null)).toBeNull();
    const broken = proposalsOf([answer('a1', [proposal('p1', '', { valid: false, diagram: { nodes: 3 } })])]);
    expect(broken[0]).toMatchObject({ name: 'Untitled workflow', diagram: null });
  });

  it('says what a read tool read, never its output', () => {
    const read = (part: AssistantPart) => (isToolPart(part) ? toolLine(part) : '');
    expect(
      read({ type: 'tool-list_agents', toolCallId: 'r1', state: 'output-available', input: {}, output: [] }),
    ).toBe('Read the agents');
    expect(
      read({
        type: 'tool-get_node_type',
        toolCallId: 'r2',
        state: 'input-available',
        input: { type: 'loop' },
      }),
    ).toBe('Reading the loop node type…');
    expect(
      read({
        type: 'tool-get_run',
        toolCallId: 'r3',
        state: 'output-error',
        input: { id: 'x' },
        errorText: 'Not found.',
      }),
    ).toBe('Could not read the run: Not found.');
    expect(read({ type: 'text', text: 'hello' })).toBe('');
  });
});
