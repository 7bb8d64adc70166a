import { useId } from 'react';

import { JsonField } from './json-field';
import { humanize, type JsonSchema, plain, visibleProperties } from './json-schema';
import { ResourcePicker } from './resource-picker';

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
    const code = name === 'sql' || schema.contentMediaType === 'text/javascript';
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {long ? (
          <textarea
            id={id}
            className={code ? 'code' : undefined}
            spellCheck={code ? false : undefined}
            rows={code ? 12 : undefined}
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
