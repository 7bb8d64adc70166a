import { APICallError, jsonSchema, tool } from 'ai';

import { CHAT_TITLE_MAX_LENGTH, chatTitleOf, explainChatFailure, withoutAskFirst } from './chat.util.js';

describe('chatTitleOf', () => {
  it('keeps a short message whole, on one line', () => {
    expect(chatTitleOf('  How many\n\norders   today? ')).toBe('How many orders today?');
  });

  it('cuts a long message at a word, within the limit', () => {
    const title = chatTitleOf(`${'word '.repeat(30)}end`);
    expect(title.length).toBeLessThanOrEqual(CHAT_TITLE_MAX_LENGTH);
    expect(title).toMatch(/^word( word)*…$/);
  });

  it('cuts a message without spaces at the limit', () => {
    const title = chatTitleOf('x'.repeat(200));
    expect(title).toBe(`${'x'.repeat(CHAT_TITLE_MAX_LENGTH - 1)}…`);
  });
});

describe('withoutAskFirst', () => {
  const schema = jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } });

  it('drops the tools that wait for approval and keeps the others', () => {
    const tools = {
      sql_crm: tool({ inputSchema: schema, execute: () => 'rows' }),
      http__request: tool({ inputSchema: schema, needsApproval: true, execute: () => 'sent' }),
      slack__post_message: tool({ inputSchema: schema, needsApproval: () => true, execute: () => 'posted' }),
    };
    expect(Object.keys(withoutAskFirst(tools))).toEqual(['sql_crm']);
  });
});

describe('explainChatFailure', () => {
  const limits = { stepMs: 1500, turnMs: 300_000 };
  const callError = (statusCode: number, cause?: unknown) =>
    new APICallError({
      message: statusCode < 300 ? 'Failed to process successful response' : 'bad key',
      url: 'http://model/v1/chat/completions',
      requestBodyValues: {},
      statusCode,
      cause,
    });

  it('names the time limit that stopped an answer while it arrived', () => {
    const step = new DOMException('Step timeout of 1500ms exceeded', 'TimeoutError');
    expect(explainChatFailure(callError(200, step), limits)).toBe('The model did not answer within 1500 ms.');
    const turn = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(explainChatFailure(callError(200, turn), limits)).toBe(
      'The answer took longer than 300 s and was stopped.',
    );
  });

  it('says the provider broke off when the stream was cut half-way', () => {
    const cut = new TypeError('terminated', { cause: new Error('other side closed') });
    expect(explainChatFailure(callError(200, cut), limits)).toMatch(/broke off its answer half-way/);
  });

  it('explains the other failures as an Agent step does', () => {
    expect(explainChatFailure(callError(401), limits)).toBe(
      'The model provider refused the call (401): bad key',
    );
  });
});
