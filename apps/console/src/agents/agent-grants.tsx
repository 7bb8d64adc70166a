import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';

import { browserRequest } from '../api/browser-client';
import type { Connection } from '../api/browser-routes';
import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Loading } from '../components/ui';
import { mcpToolsQuery } from '../connections/mcp-tools-query';
import { mcpToolChoices, setAction, setApproval, toggle } from './agent-grants.util';

type AppGrant = Schemas['AppGrantDto'];

/** The actions each built-in app offers an agent (docs/events.md); an MCP server's are its tools. */
const APP_ACTIONS: Record<string, string[]> = {
  http: ['http__request'],
  webhook: ['webhook__send'],
  slack: ['slack__post_message'],
};

/** Each connected app's actions the agent may take, and which of them it asks before taking. */
export function AppGrants({ apps, onChange }: { apps: AppGrant[]; onChange: (apps: AppGrant[]) => void }) {
  const connections = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserRequest('GET /app/connections', { query: { limit: 100 } }),
  });
  const setGrant = (connection: Connection, change: (grant: AppGrant) => AppGrant) => {
    const current = apps.find((grant) => grant.connectionId === connection.id) ?? {
      connectionId: connection.id,
      integrationId: connection.integrationId,
      actions: [],
      approvals: [],
    };
    const next = change(current);
    onChange([
      ...apps.filter((grant) => grant.connectionId !== connection.id),
      ...(next.actions.length > 0 ? [next] : []),
    ]);
  };
  return (
    <fieldset>
      <legend>Apps</legend>
      {connections.isPending ? <Loading /> : null}
      <ErrorNotice error={connections.error} />
      {connections.data?.data.length === 0 ? (
        <p className="muted">No apps connected yet (Connections).</p>
      ) : null}
      {connections.data?.data.map((connection) => {
        const grant = apps.find((g) => g.connectionId === connection.id);
        const row = (ref: string, about?: ReactNode) => (
          <ActionRow
            key={ref}
            action={ref}
            connection={connection}
            grant={grant}
            about={about}
            onChange={(change) => setGrant(connection, change)}
          />
        );
        return (
          <fieldset key={connection.id}>
            <legend>
              {connection.name} ({connection.integrationId})
            </legend>
            {connection.integrationId === 'mcp' ? (
              <McpToolRows connection={connection} granted={grant?.actions ?? []} row={row} />
            ) : (
              (APP_ACTIONS[connection.integrationId] ?? []).map((action) => row(action))
            )}
          </fieldset>
        );
      })}
    </fieldset>
  );
}

/** One action of a connection: picked or not, and ask-first or not (only once picked). */
function ActionRow({
  action,
  connection,
  grant,
  about,
  onChange,
}: {
  action: string;
  connection: Connection;
  grant: AppGrant | undefined;
  about?: ReactNode;
  onChange: (change: (grant: AppGrant) => AppGrant) => void;
}) {
  const picked = grant?.actions.includes(action) ?? false;
  return (
    <div>
      <div className="row">
        <label className="check">
          <input
            type="checkbox"
            checked={picked}
            onChange={(e) => onChange((g) => setAction(g, action, e.target.checked))}
          />
          {action} on {connection.name}
        </label>
        <label className="check">
          <input
            type="checkbox"
            disabled={!picked}
            checked={grant?.approvals.includes(action) ?? false}
            onChange={(e) => onChange((g) => setApproval(g, action, e.target.checked))}
          />
          Ask first: {action} on {connection.name}
        </label>
      </div>
      {about}
    </div>
  );
}

/**
 * An MCP connection's kept tools (`GET /app/connections/{id}/tools`, shared with the Connections page's
 * tools view), each as `mcp__<name>`; granted tools its server stopped listing are kept to be dropped.
 */
function McpToolRows({
  connection,
  granted,
  row,
}: {
  connection: Connection;
  granted: string[];
  row: (ref: string, about?: ReactNode) => ReactNode;
}) {
  const tools = useQuery(mcpToolsQuery(connection.id));
  if (tools.isPending) return <Loading label={`Loading the tools of ${connection.name}…`} />;
  if (tools.isError) {
    return <ErrorNotice error={tools.error} title={`Could not read the tools of ${connection.name}.`} />;
  }
  const choices = mcpToolChoices(tools.data.tools, granted);
  if (choices.length === 0) {
    return <p className="muted">Its server listed no tools. Refresh them on the Connections page.</p>;
  }
  return (
    <>
      {choices.map(({ ref, tool }) => {
        const about = tool
          ? [tool.title, tool.description].filter(Boolean).join(': ')
          : 'No longer listed by its server: drop it, or refresh the list, to save the agent.';
        return row(ref, about ? <small className="muted">{about}</small> : undefined);
      })}
    </>
  );
}

/** The skills mounted on the agent. */
export function SkillGrants({
  skills,
  onChange,
}: {
  skills: string[];
  onChange: (skills: string[]) => void;
}) {
  const query = useQuery({
    queryKey: ['skills'],
    queryFn: () => unwrap(api.GET('/api/v1/skills', { params: { query: { limit: 100 } } })),
  });
  return (
    <fieldset>
      <legend>Skills</legend>
      <ErrorNotice error={query.error} />
      {query.data?.data.length === 0 ? <p className="muted">No skills yet.</p> : null}
      {query.data?.data.map((skill) => (
        <label key={skill.id} className="check">
          <input
            type="checkbox"
            checked={skills.includes(skill.id)}
            onChange={(e) => onChange(toggle(skills, skill.id, e.target.checked))}
          />
          {skill.name}
        </label>
      ))}
    </fieldset>
  );
}

/** The databases the agent may query, and those of them it may also write to. */
export function DatabaseGrants({
  databases,
  writes,
  onChange,
}: {
  databases: string[];
  writes: string[];
  onChange: (databases: string[], writes: string[]) => void;
}) {
  const query = useQuery({
    queryKey: ['databases'],
    queryFn: () => unwrap(api.GET('/api/v1/databases', { params: { query: { limit: 100 } } })),
  });
  return (
    <fieldset>
      <legend>Databases</legend>
      <ErrorNotice error={query.error} />
      {query.data?.data.length === 0 ? <p className="muted">No databases yet.</p> : null}
      {query.data?.data.map((database) => (
        <div key={database.id} className="row">
          <label className="check">
            <input
              type="checkbox"
              checked={databases.includes(database.id)}
              onChange={(e) =>
                onChange(
                  toggle(databases, database.id, e.target.checked),
                  e.target.checked ? writes : writes.filter((id) => id !== database.id),
                )
              }
            />
            Query {database.name}
          </label>
          <label className="check">
            <input
              type="checkbox"
              disabled={!databases.includes(database.id)}
              checked={writes.includes(database.id)}
              onChange={(e) => onChange(databases, toggle(writes, database.id, e.target.checked))}
            />
            Write to {database.name}
          </label>
        </div>
      ))}
    </fieldset>
  );
}
