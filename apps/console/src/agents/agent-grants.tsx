import { useQuery } from '@tanstack/react-query';

import { browserRequest } from '../api/browser-client';
import type { Connection } from '../api/browser-routes';
import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Loading } from '../components/ui';

type AppGrant = Schemas['AppGrantDto'];

/** The actions each built-in app offers an agent (docs/events.md). */
const APP_ACTIONS: Record<string, string[]> = {
  http: ['http__request'],
  webhook: ['webhook__send'],
  slack: ['slack__post_message'],
};

export function toggle(list: string[], value: string, on: boolean): string[] {
  return on ? [...new Set([...list, value])] : list.filter((item) => item !== value);
}

/** Each connected app's actions the agent may take, and which of them it asks before taking. */
export function AppGrants({ apps, onChange }: { apps: AppGrant[]; onChange: (apps: AppGrant[]) => void }) {
  const connections = useQuery({
    queryKey: ['connections'],
    queryFn: () => browserRequest('GET /app/connections', { query: { limit: 100 } }),
  });
  const grantOf = (connection: Connection): AppGrant | undefined =>
    apps.find((grant) => grant.connectionId === connection.id);
  const setGrant = (connection: Connection, change: (grant: AppGrant) => AppGrant | null) => {
    const current = grantOf(connection) ?? {
      connectionId: connection.id,
      integrationId: connection.integrationId,
      actions: [],
      approvals: [],
    };
    const next = change(current);
    onChange([
      ...apps.filter((grant) => grant.connectionId !== connection.id),
      ...(next && next.actions.length > 0 ? [next] : []),
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
        const grant = grantOf(connection);
        return (
          <fieldset key={connection.id}>
            <legend>
              {connection.name} ({connection.integrationId})
            </legend>
            {(APP_ACTIONS[connection.integrationId] ?? []).map((action) => (
              <div key={action} className="row">
                <label className="check">
                  <input
                    type="checkbox"
                    checked={grant?.actions.includes(action) ?? false}
                    onChange={(e) =>
                      setGrant(connection, (g) => ({
                        ...g,
                        actions: toggle(g.actions, action, e.target.checked),
                        approvals: e.target.checked ? g.approvals : g.approvals.filter((a) => a !== action),
                      }))
                    }
                  />
                  {action} on {connection.name}
                </label>
                <label className="check">
                  <input
                    type="checkbox"
                    disabled={!grant?.actions.includes(action)}
                    checked={grant?.approvals.includes(action) ?? false}
                    onChange={(e) =>
                      setGrant(connection, (g) => ({
                        ...g,
                        approvals: toggle(g.approvals, action, e.target.checked),
                      }))
                    }
                  />
                  Ask first: {action} on {connection.name}
                </label>
              </div>
            ))}
          </fieldset>
        );
      })}
    </fieldset>
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
