import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';

import { api, browserFetch, unwrap } from '../api/client';
import { ErrorNotice, Loading } from '../components/ui';

/** The JSON Schema subset the API's node-type schemas use. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  allOf?: Array<{ if?: JsonSchema; then?: JsonSchema }>;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  examples?: unknown[];
}

const SCHEMA_NAMES: Record<string, string> = {
  trigger: 'TriggerNodeProperties',
  agent: 'AgentNodeProperties',
  action: 'ActionNodeProperties',
  condition: 'ConditionNodeProperties',
  database: 'DatabaseNodeProperties',
  delay: 'DelayNodeProperties',
};

/**
 * The node-type schemas as the API publishes them in its OpenAPI document (the validator's own), so
 * the form follows the API without a copy in the console.
 */
export function useNodeTypeSchemas() {
  return useQuery({
    queryKey: ['node-type-schemas'],
    queryFn: async () => {
      const document = await browserFetch<{ components: { schemas: Record<string, JsonSchema> } }>(
        '/docs/openapi.json',
      );
      return Object.fromEntries(
        Object.entries(SCHEMA_NAMES).map(([type, name]) => [type, document.components.schemas[name] ?? {}]),
      ) as Record<string, JsonSchema>;
    },
    staleTime: Infinity,
  });
}

const humanize = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/^./, (first) => first.toUpperCase())
    .replace(/ Id$/, '');

const plain = (text: string | undefined) => text?.replace(/`/g, '');

/** Properties that a conditional (`allOf: [{if, then}]`) brings in only when its `if` holds. */
function visibleProperties(schema: JsonSchema, value: Record<string, unknown>): string[] {
  const conditional = new Map<string, boolean>();
  for (const rule of schema.allOf ?? []) {
    const holds = Object.entries(rule.if?.properties ?? {}).every(
      ([key, condition]) => condition.const === undefined || value[key] === condition.const,
    );
    for (const key of Object.keys(rule.then?.properties ?? {})) {
      conditional.set(key, (conditional.get(key) ?? false) || holds);
    }
  }
  return Object.keys(schema.properties ?? {}).filter(
    (key) => !conditional.has(key) || conditional.get(key) || value[key] !== undefined,
  );
}

/** A form generated from a node type's schema: one field per property, by its type. */
export function SchemaForm({
  schema,
  value,
  onChange,
}: {
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
}) {
  return (
    <>
      {visibleProperties(schema, value).map((key) => (
        <SchemaField
          key={key}
          name={key}
          schema={schema.properties?.[key] ?? {}}
          required={schema.required?.includes(key) ?? false}
          value={value[key]}
          onChange={(next) => {
            const copy = { ...value };
            if (next === undefined) delete copy[key];
            else copy[key] = next;
            onChange(copy);
          }}
        />
      ))}
    </>
  );
}

const RESOURCE_FIELDS = new Set(['databaseId', 'agentId', 'connectionId']);

function SchemaField({
  name,
  schema,
  required,
  value,
  onChange,
}: {
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const id = useId();
  const label = `${humanize(name)}${required ? ' (required)' : ''}`;
  const hint = plain(schema.description);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];

  if (schema.enum) {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select
          id={id}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.target.value || undefined)}
        >
          {required && value !== undefined ? null : <option value="">—</option>}
          {schema.enum.map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option).replace(/_/g, ' ')}
            </option>
          ))}
        </select>
        {hint ? <small className="muted">{hint}</small> : null}
      </div>
    );
  }
  if (RESOURCE_FIELDS.has(name)) {
    return <ResourcePicker id={id} name={name} label={label} hint={hint} value={value} onChange={onChange} />;
  }
  if (types.includes('string') && types.length === 1) {
    const long = name === 'sql' || name === 'task' || (schema.maxLength ?? 0) > 1000;
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {long ? (
          <textarea
            id={id}
            className={name === 'sql' ? 'code' : undefined}
            value={typeof value === 'string' ? value : ''}
            onChange={(e) => onChange(e.target.value)}
          />
        ) : (
          <input
            id={id}
            value={typeof value === 'string' ? value : ''}
            placeholder={schema.examples?.[0] === undefined ? undefined : String(schema.examples[0])}
            onChange={(e) => onChange(e.target.value === '' && !required ? undefined : e.target.value)}
          />
        )}
        {hint ? <small className="muted">{hint}</small> : null}
      </div>
    );
  }
  if (types.includes('integer') || types.includes('number')) {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="number"
          min={schema.minimum}
          max={schema.maximum}
          step={types.includes('integer') ? 1 : 'any'}
          value={typeof value === 'number' ? value : ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
        {hint ? <small className="muted">{hint}</small> : null}
      </div>
    );
  }
  if (types.includes('boolean')) {
    return (
      <div className="field check">
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
        <label htmlFor={id}>{label}</label>
      </div>
    );
  }
  if (types.includes('array') && schema.items?.properties) {
    const items = Array.isArray(value) ? (value as Array<Record<string, unknown>>) : [];
    const itemSchema = schema.items;
    return (
      <fieldset>
        <legend>{label}</legend>
        {hint ? <small className="muted">{hint}</small> : null}
        {items.map((item, index) => (
          <fieldset key={index}>
            <legend>
              {humanize(name).replace(/s$/, '')} {index + 1}
            </legend>
            <SchemaForm
              schema={itemSchema}
              value={item}
              onChange={(next) => onChange(items.map((old, at) => (at === index ? next : old)))}
            />
            <button
              type="button"
              className="danger"
              onClick={() => onChange(items.filter((_, at) => at !== index))}
            >
              Remove {humanize(name).replace(/s$/, '').toLowerCase()} {index + 1}
            </button>
          </fieldset>
        ))}
        <button type="button" className="secondary" onClick={() => onChange([...items, {}])}>
          Add {humanize(name).replace(/s$/, '').toLowerCase()}
        </button>
      </fieldset>
    );
  }
  if (types.includes('object') && schema.properties) {
    const object =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    return (
      <fieldset>
        <legend>{humanize(name)}</legend>
        {hint ? <small className="muted">{hint}</small> : null}
        {object ? (
          <>
            <SchemaForm schema={schema} value={object} onChange={onChange} />
            <button type="button" className="danger" onClick={() => onChange(undefined)}>
              Remove {humanize(name).toLowerCase()}
            </button>
          </>
        ) : (
          <button type="button" className="secondary" onClick={() => onChange({})}>
            Add {humanize(name).toLowerCase()}
          </button>
        )}
      </fieldset>
    );
  }
  return <JsonField id={id} label={label} hint={hint} value={value} onChange={onChange} />;
}

/** Free-form objects and arrays (an action's input, a filter, SQL params) are edited as JSON. */
function JsonField({
  id,
  label,
  hint,
  value,
  onChange,
}: {
  id: string;
  label: string;
  hint?: string;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    setText(value === undefined ? '' : JSON.stringify(value, null, 2));
  }, [value]);
  return (
    <div className="field">
      <label htmlFor={id}>{label} (JSON)</label>
      <textarea
        id={id}
        className="code"
        value={text}
        aria-invalid={problem !== null}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          if (text.trim() === '') {
            setProblem(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(text));
            setProblem(null);
          } catch {
            setProblem('This is not valid JSON; the last valid value is kept.');
          }
        }}
      />
      {problem ? <small className="notice error">{problem}</small> : null}
      {hint ? <small className="muted">{hint}</small> : null}
    </div>
  );
}

/** An id of one of the organization's databases, agents or connections, picked by name. */
function ResourcePicker({
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
      const page = await browserFetch<{ data: Array<{ id: string; name: string; integrationId: string }> }>(
        '/app/connections?limit=100',
      );
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
