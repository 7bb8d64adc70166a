import { useQuery } from '@tanstack/react-query';

import { browserRequest } from '../api/browser-client';
import { api, unwrap } from '../api/client';
import { ErrorNotice, Loading } from '../components/ui';

/** An id of one of the organization's databases, agents or connections, picked by name. */
export function ResourcePicker({
  id,
  name,
  label,
  hint,
  value,
  onChange,
}: {
  id: string;
  name: string;
  label: string;
  hint?: string;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const options = useQuery({
    queryKey: ['picker', name],
    queryFn: async (): Promise<Array<{ id: string; name: string }>> => {
      if (name === 'databaseId')
        return (await unwrap(api.GET('/api/v1/databases', { params: { query: { limit: 100 } } }))).data;
      if (name === 'agentId')
        return (await unwrap(api.GET('/api/v1/agents', { params: { query: { limit: 100 } } }))).data;
      const page = await browserRequest('GET /app/connections', { query: { limit: 100 } });
      return page.data.map((connection) => ({
        id: connection.id,
        name: `${connection.name} (${connection.integrationId})`,
      }));
    },
  });
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {options.isPending ? <Loading /> : null}
      <ErrorNotice error={options.error} />
      <select
        id={id}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value || undefined)}
      >
        <option value="">— choose —</option>
        {(options.data ?? []).map((option) => (
          <option key={option.id} value={option.id}>
            {option.name}
          </option>
        ))}
        {typeof value === 'string' && value !== '' && !(options.data ?? []).some((o) => o.id === value) ? (
          <option value={value}>{value}</option>
        ) : null}
      </select>
      {hint ? <small className="muted">{hint}</small> : null}
    </div>
  );
}
