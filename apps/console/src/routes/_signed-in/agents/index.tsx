import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';

import { AgentForm } from '../../../agents/agent-form';
import { api, unwrap } from '../../../api/client';
import { formatTime, PageHeader, QueryView } from '../../../components/ui';

export const Route = createFileRoute('/_signed-in/agents/')({ component: AgentsPage });

function AgentsPage() {
  const navigate = useNavigate();
  const query = useQuery({
    queryKey: ['agents'],
    queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { limit: 100 } } })),
  });
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader title="Agents">
        <button type="button" onClick={() => setCreating(true)}>
          New agent
        </button>
      </PageHeader>
      {creating ? (
        <AgentForm
          agent={null}
          onSaved={(agent) => void navigate({ to: '/agents/$agentId', params: { agentId: agent.id } })}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      <QueryView query={query} isEmpty={(page) => page.data.length === 0} empty="No agents yet.">
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Apps</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((agent) => (
                  <tr key={agent.id}>
                    <td>
                      <Link to="/agents/$agentId" params={{ agentId: agent.id }}>
                        {agent.name}
                      </Link>
                    </td>
                    <td>{agent.description}</td>
                    <td>
                      {agent.provider} {agent.model ? `· ${agent.model}` : ''}
                    </td>
                    <td>{agent.apps.length}</td>
                    <td>{formatTime(agent.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </>
  );
}
