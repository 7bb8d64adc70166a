import '../components/attention-list.css';
import './chat.css';

import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';

import { browserRequest } from '../api/browser-client';
import type { Schemas } from '../api/client';
import { Empty, formatTime, QueryView } from '../components/ui';

type Agent = Schemas['AgentDto'];

/** A stored message as text: its text parts, and each tool call or result by its tool's name. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: { type?: string; text?: string; toolName?: string }) =>
        part.type === 'text'
          ? (part.text ?? '')
          : part.toolName
            ? `[${part.type ?? 'tool'}: ${part.toolName}]`
            : '',
      )
      .filter(Boolean)
      .join('\n');
  return JSON.stringify(content);
}

/** The agent's conversations, those of runs included; one opens to read. */
export function AgentThreads({ agent }: { agent: Agent }) {
  const [open, setOpen] = useState<string | null>(null);
  const threads = useQuery({
    queryKey: ['threads', agent.id],
    queryFn: () =>
      browserRequest('GET /app/agents/{id}/threads', { path: { id: agent.id }, query: { limit: 50 } }),
  });
  const detail = useQuery({
    queryKey: ['thread', agent.id, open],
    enabled: open !== null,
    queryFn: () =>
      browserRequest('GET /app/agents/{id}/threads/{threadId}', {
        path: { id: agent.id, threadId: open ?? '' },
      }),
  });
  return (
    <div className="grid-2">
      <QueryView
        query={threads}
        isEmpty={(page) => page.data.length === 0}
        empty="No threads yet: chat, or run a workflow with this agent."
      >
        {(page) => (
          <ul className="attention-list">
            {page.data.map((thread) => (
              <li key={thread.id}>
                <button
                  type="button"
                  className="secondary"
                  aria-pressed={open === thread.id}
                  onClick={() => setOpen(thread.id)}
                >
                  {thread.title}
                </button>{' '}
                <span className="muted">{formatTime(thread.updatedAt)}</span>
                {thread.runId ? (
                  <>
                    {' '}
                    ·{' '}
                    <Link to="/runs/$runId" params={{ runId: thread.runId }}>
                      run
                    </Link>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      <div>
        {open === null ? (
          <Empty>Choose a thread to read it.</Empty>
        ) : (
          <QueryView query={detail}>
            {(thread) => (
              <div className="chat" aria-label={thread.title}>
                {thread.messages
                  .filter((message) => message.role !== 'system')
                  .map((message, index) => (
                    <div key={index} className={`message ${message.role === 'user' ? 'user' : ''}`}>
                      <strong>{message.role}</strong>: {contentText(message.content)}
                    </div>
                  ))}
              </div>
            )}
          </QueryView>
        )}
      </div>
    </div>
  );
}
