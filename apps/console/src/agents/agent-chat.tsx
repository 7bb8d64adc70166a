import './chat.css';

import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useMemo, useState } from 'react';

import { chatFetch } from '../api/chat-fetch';
import type { Schemas } from '../api/client';
import { ErrorNotice, Loading } from '../components/ui';

type Agent = Schemas['AgentDto'];

/** An answer names, in its metadata, the thread the server keeps the conversation in. */
type ChatMessage = UIMessage<{ threadId?: string }>;

const threadOf = (messages: ChatMessage[]) =>
  messages.findLast((message) => message.metadata?.threadId)?.metadata?.threadId;

const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/** Chat with the agent, streamed (AI SDK UI message stream from `/app/agents/{id}/chat`). */
export function AgentChat({ agent }: { agent: Agent }) {
  const [text, setText] = useState('');
  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatMessage>({
        api: `/app/agents/${encodeURIComponent(agent.id)}/chat`,
        credentials: 'same-origin',
        // The server keeps the conversation: it gets the newest message, and the thread to add it
        // to once the first answer named it.
        prepareSendMessagesRequest: ({ id, messages }) => ({
          body: { id: threadOf(messages) ?? id, messages: messages.slice(-1) },
        }),
        fetch: chatFetch,
      }),
    [agent.id],
  );
  const chat = useChat<ChatMessage>({ transport });
  const busy = chat.status === 'submitted' || chat.status === 'streaming';
  return (
    <section aria-label={`Chat with ${agent.name}`}>
      <div className="chat" aria-live="polite" aria-label="Conversation">
        {chat.messages.length === 0 ? <p className="muted">Say something to {agent.name}.</p> : null}
        {chat.messages.map((message) => (
          <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
            <span className="visually-hidden">{message.role === 'user' ? 'You: ' : `${agent.name}: `}</span>
            {textOf(message)}
          </div>
        ))}
        {chat.status === 'submitted' ? <Loading label="Thinking…" /> : null}
      </div>
      <ErrorNotice error={chat.error} title="The agent could not answer." />
      <form
        className="row"
        style={{ marginTop: '0.5rem' }}
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() === '') return;
          void chat.sendMessage({ text });
          setText('');
        }}
      >
        <label htmlFor="chat-message" className="visually-hidden">
          Message
        </label>
        <input
          id="chat-message"
          style={{ flex: 1 }}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Message"
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
        {busy ? (
          <button type="button" className="secondary" onClick={() => void chat.stop()}>
            Stop
          </button>
        ) : null}
      </form>
    </section>
  );
}
