import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { browserRequest } from '../api/browser-client';
import type { Connection } from '../api/browser-routes';
import { Empty, ErrorNotice, formatTime, QueryView } from '../components/ui';
import { mcpToolsQuery } from './mcp-tools-query';
import { toolArguments } from './mcp.util';

/**
 * An `mcp` connection's kept tools, those its server listed that could not be kept, and _Refresh
 * tools_ (any member). A refresh also says whether the server answers, so the connections are read
 * again after it, whichever way it went: their health changed with it.
 */
export function McpTools({ connection, onClose }: { connection: Connection; onClose: () => void }) {
  const client = useQueryClient();
  const query = mcpToolsQuery(connection.id);
  const tools = useQuery(query);
  const refresh = useMutation({
    mutationFn: () =>
      browserRequest('POST /app/connections/{id}/refresh-tools', { path: { id: connection.id } }),
    onSuccess: (list) => client.setQueryData(query.queryKey, list),
    onSettled: () => client.invalidateQueries({ queryKey: ['connections'] }),
  });
  const headingId = `tools-${connection.id}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <div className="page-header">
        <h2 id={headingId} style={{ margin: 0 }}>
          Tools of {connection.name}
        </h2>
        <div className="actions">
          <button type="button" disabled={refresh.isPending} onClick={() => refresh.mutate()}>
            {refresh.isPending ? 'Refreshing tools…' : 'Refresh tools'}
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <ErrorNotice error={refresh.error} title="Could not refresh the tools." />
      <QueryView query={tools}>
        {(list) => (
          <>
            <p className="muted">
              Listed by the server at {connection.allowedOrigins?.[0] ?? 'its URL'} on{' '}
              {formatTime(list.refreshedAt)}. Agents are granted them as <code>mcp__&lt;name&gt;</code>.
            </p>
            {list.tools.length === 0 ? (
              <Empty>The server listed no tools it could keep.</Empty>
            ) : (
              <div className="table-wrap" tabIndex={0}>
                <table aria-label={`Tools of ${connection.name}`}>
                  <thead>
                    <tr>
                      <th scope="col">Tool</th>
                      <th scope="col">Title</th>
                      <th scope="col">Description</th>
                      <th scope="col">Arguments</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.tools.map((tool) => (
                      <tr key={tool.name}>
                        <td>
                          <code>{tool.name}</code>
                        </td>
                        <td>{tool.title ?? '—'}</td>
                        <td>{tool.description || '—'}</td>
                        <td>{toolArguments(tool.inputSchema).join(', ') || '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {list.ignored.length > 0 ? (
              <>
                <h3>Not kept</h3>
                <ul>
                  {list.ignored.map((tool) => (
                    <li key={tool.name}>
                      <code>{tool.name}</code>: {tool.reason}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </>
        )}
      </QueryView>
    </section>
  );
}
