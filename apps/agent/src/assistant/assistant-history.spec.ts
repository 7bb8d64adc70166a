import { ASSISTANT_HISTORY_TURNS, historyOf, turnRecordOf } from './assistant-history.js';

const diagram = (id: string) => ({
  nodes: [{ id, data: { type: 'trigger', properties: { kind: 'api' } } }],
  edges: [],
});

describe('historyOf', () => {
  it('gives the newest proposal whole and only names the earlier ones', () => {
    const turns = [
      turnRecordOf('Draft it', 'Here.', {
        name: 'First',
        valid: true,
        issues: [],
        diagram: diagram('first-node'),
      }),
      turnRecordOf('Why?', 'Because.', undefined),
      turnRecordOf('Change it', 'Changed.', {
        name: 'Second',
        valid: false,
        issues: [{ path: 'nodes', message: 'the diagram has no trigger node' }],
        diagram: diagram('second-node'),
      }),
    ];

    const messages = historyOf(turns);

    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const text = JSON.stringify(messages);
    expect(text).not.toContain('first-node');
    expect(text).toContain('I proposed \\"First\\" (valid); a later proposal replaced it.');
    expect(text).toContain('second-node');
    expect(text).toContain('not valid: nodes: the diagram has no trigger node');
  });

  it('sends only the newest turns', () => {
    const turns = Array.from({ length: ASSISTANT_HISTORY_TURNS + 5 }, (_, index) =>
      turnRecordOf(`question ${index}`, `answer ${index}`, undefined),
    );

    const messages = historyOf(turns);

    expect(messages).toHaveLength(2 * ASSISTANT_HISTORY_TURNS);
    expect(messages[0]).toEqual({ role: 'user', content: 'question 5' });
  });

  it('keeps a long answer cut, and an empty one as a placeholder', () => {
    expect(turnRecordOf('q', 'x'.repeat(10_000), undefined).answer).toHaveLength(8_001);
    expect(historyOf([turnRecordOf('q', '', undefined)])[1]).toEqual({
      role: 'assistant',
      content: '(no answer)',
    });
  });
});
