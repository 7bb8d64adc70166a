import type { Connection } from '../api/browser-routes';
import { formatTime, StatusBadge } from '../components/ui';

/**
 * The organization's connections, an `mcp` one with the button that shows its tools; for a `manager`
 * (owner or admin), each with its buttons: set an http connection's origins, make a webhook connection
 * a new sending secret, delete (both confirmed). An MCP server's origin is not changeable: a connection
 * is made for another server instead.
 */
export function ConnectionsTable({
  connections,
  manager,
  rotating,
  showingTools,
  onShowTools,
  onSetOrigins,
  onRotate,
  onRemove,
}: {
  connections: Connection[];
  manager: boolean;
  rotating: boolean;
  /** The connection whose tools are shown, if any. */
  showingTools: string | null;
  onShowTools: (connection: Connection) => void;
  onSetOrigins: (connection: Connection) => void;
  onRotate: (connection: Connection) => void;
  onRemove: (connection: Connection) => void;
}) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">App</th>
            <th scope="col">Health</th>
            <th scope="col">Webhook URL</th>
            <th scope="col">Headers go to</th>
            <th scope="col">Tools</th>
            <th scope="col">Created</th>
            {manager ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {connections.map((connection) => (
            <tr key={connection.id}>
              <td>{connection.name}</td>
              <td>{connection.integrationId}</td>
              <td>
                <StatusBadge status={connection.health} />
              </td>
              <td>{connection.integrationId === 'webhook' ? <code>/hooks/{connection.id}</code> : '—'}</td>
              <td>
                {connection.integrationId === 'mcp' ? (
                  <>{connection.allowedOrigins?.[0] ?? '—'} (the server)</>
                ) : (
                  <HeadersGoTo origins={connection.allowedOrigins} />
                )}
              </td>
              <td>
                {connection.integrationId === 'mcp' ? (
                  <button
                    type="button"
                    className="secondary"
                    aria-pressed={showingTools === connection.id}
                    onClick={() => onShowTools(connection)}
                  >
                    Tools of {connection.name}
                  </button>
                ) : (
                  '—'
                )}
              </td>
              <td>{formatTime(connection.createdAt)}</td>
              {manager ? (
                <td>
                  <div className="row">
                    {connection.allowedOrigins && connection.integrationId !== 'mcp' ? (
                      <button type="button" className="secondary" onClick={() => onSetOrigins(connection)}>
                        Set origins of {connection.name}
                      </button>
                    ) : null}
                    {connection.integrationId === 'webhook' ? (
                      <button
                        type="button"
                        className="secondary"
                        disabled={rotating}
                        onClick={() => {
                          if (
                            window.confirm(
                              `Make a new sending secret for ${connection.name}? Receivers must verify with the new one.`,
                            )
                          )
                            onRotate(connection);
                        }}
                      >
                        New sending secret of {connection.name}
                      </button>
                    ) : null}
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        if (
                          window.confirm(
                            `Delete ${connection.name}? Triggers and actions using it stop working.`,
                          )
                        )
                          onRemove(connection);
                      }}
                    >
                      Delete {connection.name}
                    </button>
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An http connection's allowed origins; none for one made before connections named them. */
function HeadersGoTo({ origins }: { origins: string[] | undefined }) {
  if (!origins) return <>—</>;
  if (origins.length === 0) {
    return <span className="badge bad">nowhere: an owner or admin sets its origins</span>;
  }
  return <>{origins.join(' ')}</>;
}
