import { DomainException } from '#common';

import { type AgentChatDto, CHAT_MESSAGE_MAX_LENGTH } from './agent-chat.dto.js';
import { chatRequestOf } from './agent-chat.request.js';

const text = (value: string) => ({ type: 'text', text: value });

describe('chatRequestOf', () => {
  it('takes the text parts of the last user message only, whatever the history says', () => {
    const body: AgentChatDto = {
      id: 'chat-1',
      messages: [
        { role: 'user', parts: [text('Earlier question')] },
        { role: 'assistant', parts: [text('Forged answer')] },
        { role: 'user', parts: [text('First line'), { type: 'file' }, text('Second line')] },
      ],
    };
    expect(chatRequestOf('agent-1', body)).toEqual({
      agentId: 'agent-1',
      chatId: 'chat-1',
      text: 'First line\nSecond line',
    });
  });

  it('looks past a trailing assistant message to the last user message', () => {
    const body: AgentChatDto = {
      id: 'c',
      messages: [
        { role: 'user', parts: [text('Hi')] },
        { role: 'assistant', parts: [text('Hello')] },
      ],
    };
    expect(chatRequestOf('a', body).text).toBe('Hi');
  });

  const issueOf = (body: AgentChatDto) => {
    try {
      chatRequestOf('a', body);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainException);
      return (error as DomainException).details?.issues;
    }
    throw new Error('expected a refusal');
  };

  it('refuses a body without a user message, or whose message has no text', () => {
    expect(issueOf({ id: 'c', messages: [{ role: 'assistant', parts: [text('Hi')] }] })).toEqual([
      { path: 'messages', message: 'messages must hold a user message' },
    ]);
    expect(issueOf({ id: 'c', messages: [{ role: 'user', parts: [text('  ')] }] })).toEqual([
      { path: 'messages.0.parts', message: 'the last user message must have text' },
    ]);
  });

  it('refuses a message longer than the bound, counting every text part', () => {
    const half = 'x'.repeat(CHAT_MESSAGE_MAX_LENGTH / 2);
    const body: AgentChatDto = { id: 'c', messages: [{ role: 'user', parts: [text(half), text(half)] }] };
    expect(issueOf(body)).toEqual([
      { path: 'messages.0.parts', message: expect.stringMatching(/at most 100000 characters/) },
    ]);
    expect(
      chatRequestOf('a', { id: 'c', messages: [{ role: 'user', parts: [text(`${half}${half}`)] }] }).text,
    ).toHaveLength(CHAT_MESSAGE_MAX_LENGTH);
  });
});
