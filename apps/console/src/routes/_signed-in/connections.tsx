import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import { browserRequest } from '../../api/browser-client';
import type { Connection } from '../../api/browser-routes';
import { managesOrganization, useMember } from '../../auth/session';
import { ErrorNotice, PageHeader, QueryView, SecretOnce } from '../../components/ui';
import { ConnectForm } from '../../connections/connect-form';
import { ConnectionsTable } from '../../connections/connections-table';
import { McpTools } from '../../connections/mcp-tools';
import { OriginsForm } from '../../connections/origins-form';

/**
 * App connections (browser-only `/app/connections`): credentials go in and never come back. Any
 * member connects an app and sees and refreshes an MCP server's tools; owners and admins also change
 * where an http connection's headers go, make a webhook connection a new sending secret, and delete.
 */
export const Route = createFileRoute('/_signed-in/connections')({ component: ConnectionsPage });

function ConnectionsPage() {
  const client = useQueryClient();
  const manager = managesOrganization(useMember().role);
  const [editing, setEditing] = useState<Connection | null>(null);
  const [toolsOf, setToolsOf] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserRequest('GET /app/connections', { query: { limit: 100 } }),
  });
  const refresh = () => void client.invalidateQueries({ queryKey: ['connections'] });
  const remove = useMutation({
    mutationFn: (id: string) => browserRequest('DELETE /app/connections/{id}', { path: { id } }),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async (connection: Connection) => {
      const { sendingSecret } = await browserRequest('POST /app/connections/{id}/sending-secret', {
        path: { id: connection.id },
      });
      return { name: connection.name, sendingSecret };
    },
  });
  // By id, so the panel follows the listed connection (its health, a deletion) as the list is read again.
  const toolsConnection = list.data?.data.find((connection) => connection.id === toolsOf);
  return (
    <>
      <PageHeader title="Connections" />
      <ConnectForm onConnected={refresh} />
      {editing ? (
        <OriginsForm
          key={editing.id}
          connection={editing}
          onDone={() => {
            setEditing(null);
            refresh();
          }}
        />
      ) : null}
      {toolsConnection ? (
        <McpTools key={toolsConnection.id} connection={toolsConnection} onClose={() => setToolsOf(null)} />
      ) : null}
      {rotate.data ? (
        <SecretOnce
          label={`New sending secret of ${rotate.data.name}; the previous one no longer signs.`}
          value={rotate.data.sendingSecret}
          testId="rotated-secret-value"
        />
      ) : null}
      <ErrorNotice error={rotate.error} title="Could not make a new sending secret." />
      <ErrorNotice error={remove.error} title="Could not delete the connection." />
      <QueryView query={list} isEmpty={(page) => page.data.length === 0} empty="No apps connected yet.">
        {(page) => (
          <ConnectionsTable
            connections={page.data}
            manager={manager}
            rotating={rotate.isPending}
            showingTools={toolsOf}
            onShowTools={(connection) => setToolsOf(toolsOf === connection.id ? null : connection.id)}
            onSetOrigins={setEditing}
            onRotate={(connection) => rotate.mutate(connection)}
            onRemove={(connection) => remove.mutate(connection.id)}
          />
        )}
      </QueryView>
    </>
  );
}
