import '../../../components/tabs.css';

import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import { AgentChat } from '../../../agents/agent-chat';
import { AgentForm } from '../../../agents/agent-form';
import { AgentThreads } from '../../../agents/agent-threads';
import { api, unwrap } from '../../../api/client';
import { PageHeader, QueryView } from '../../../components/ui';

/** An agent: its settings, a chat with it, and its threads. */
export const Route = createFileRoute('/_signed-in/agents/$agentId')({ component: AgentPage });

function AgentPage() {
  const { agentId } = Route.useParams();
  const [tab, setTab] = useState<'settings' | 'chat' | 'threads'>('settings');
  const query = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => unwrap(api.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } })),
  });
  return (
    <QueryView query={query}>
      {(agent) => (
        <>
          <PageHeader title={`Agent ${agent.name}`} />
          <div className="tabs" role="tablist" aria-label="Agent">
            {(
              [
                ['settings', 'Settings'],
                ['chat', 'Chat'],
                ['threads', 'Threads'],
              ] as const
            ).map(([key, label]) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={tab === key}
                onClick={() => setTab(key)}
              >
                {label}
              </button>
            ))}
          </div>
          <div role="tabpanel">
            {tab === 'settings' ? <AgentForm key={agent.id} agent={agent} /> : null}
            {tab === 'chat' ? <AgentChat agent={agent} /> : null}
            {tab === 'threads' ? <AgentThreads agent={agent} /> : null}
          </div>
        </>
      )}
    </QueryView>
  );
}
