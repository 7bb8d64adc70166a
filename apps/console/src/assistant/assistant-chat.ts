import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useMemo } from 'react';

import { chatFetch } from '../api/chat-fetch';
import { type AssistantMessage, conversationOf } from './assistant-messages.util';

/**
 * What the member is looking at, sent with each message: the workflow whose draft a proposal
 * replaces, the project a new workflow is for, a run they ask about.
 */
export interface AssistantScope {
  workflowId?: string;
  projectId?: string;
  runId?: string;
}

/** The question "Explain this failure" asks, with the failed run in the scope. */
export const EXPLAIN_FAILURE = 'Explain why this run failed and suggest a fix.';

/**
 * A conversation with the workflow assistant (`POST /app/assistant`, the AI SDK's UI message
 * stream). It lives with its owner rather than in the panel, so closing the panel keeps it and a
 * button elsewhere (Explain this failure) can ask from its click handler.
 */
export function useAssistantChat(scope: AssistantScope) {
  const transport = useMemo(
    () =>
      new DefaultChatTransport<AssistantMessage>({
        api: '/app/assistant',
        credentials: 'same-origin',
        // The server keeps the conversation: it gets the newest message, and the conversation to add
        // it to once the first answer named it. The scope comes with each message (`ask`), as it is
        // then: the member may pick another project between messages.
        prepareSendMessagesRequest: ({ id, messages, body }) => ({
          body: { ...body, id: conversationOf(messages) ?? id, messages: messages.slice(-1) },
        }),
        fetch: chatFetch,
      }),
    [],
  );
  const chat = useChat<AssistantMessage>({ transport });
  const ask = (text: string) => chat.sendMessage({ text }, { body: { ...scope } });
  return { chat, ask, busy: chat.status === 'submitted' || chat.status === 'streaming' };
}

export type AssistantChat = ReturnType<typeof useAssistantChat>;
