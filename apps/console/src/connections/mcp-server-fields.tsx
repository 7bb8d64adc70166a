import { Field } from '../components/ui';
import type { HeaderRow, McpConfigInput } from './mcp.util';

export const MCP_FIELD_PATHS = ['config.url', 'config.bearerToken', 'config.headers'];

export const NO_MCP_SERVER: McpConfigInput = { url: '', bearerToken: '', headers: [] };

/**
 * The Connect form's fields of an `mcp` connection (docs/mcp.md, "Connecting"). `issueAt` gives what
 * was refused at a config path: connecting lists the server's tools first, so a server that refuses
 * the credentials or cannot be reached is named on the URL field.
 */
export function McpServerFields({
  value,
  onChange,
  issueAt,
}: {
  value: McpConfigInput;
  onChange: (value: McpConfigInput) => void;
  issueAt: (path: string) => string | undefined;
}) {
  const setRow = (index: number, row: HeaderRow | null) =>
    onChange({
      ...value,
      headers: row
        ? value.headers.map((old, i) => (i === index ? row : old))
        : value.headers.filter((_, i) => i !== index),
    });
  const headersIssue = issueAt('config.headers');
  return (
    <>
      <Field
        label="MCP server URL"
        hint="Its Streamable HTTP endpoint. Connecting lists its tools first; credentials go to its origin only."
      >
        {(id) => (
          <>
            <input
              id={id}
              type="url"
              required
              placeholder="https://mcp.example.com/mcp"
              value={value.url}
              aria-invalid={issueAt('config.url') ? true : undefined}
              aria-describedby={issueAt('config.url') ? `${id}-issue` : undefined}
              onChange={(event) => onChange({ ...value, url: event.target.value })}
            />
            <FieldIssue id={`${id}-issue`} message={issueAt('config.url')} />
          </>
        )}
      </Field>
      <Field
        label="Bearer token (optional)"
        hint="Sent as Authorization: Bearer …, the token alone. It is sealed and never shown again."
      >
        {(id) => (
          <>
            <input
              id={id}
              type="password"
              autoComplete="off"
              value={value.bearerToken}
              aria-invalid={issueAt('config.bearerToken') ? true : undefined}
              aria-describedby={issueAt('config.bearerToken') ? `${id}-issue` : undefined}
              onChange={(event) => onChange({ ...value, bearerToken: event.target.value })}
            />
            <FieldIssue id={`${id}-issue`} message={issueAt('config.bearerToken')} />
          </>
        )}
      </Field>
      <fieldset>
        <legend>Other headers sent to the server (optional)</legend>
        {value.headers.map((row, index) => (
          // Rows have no identity but their place: typing in one must not move the focus to another.
          <div key={index} className="row">
            <input
              aria-label={`Name of header ${index + 1}`}
              placeholder="X-Api-Key"
              value={row.name}
              onChange={(event) => setRow(index, { ...row, name: event.target.value })}
            />
            <input
              aria-label={`Value of header ${index + 1}`}
              type="password"
              autoComplete="off"
              value={row.value}
              onChange={(event) => setRow(index, { ...row, value: event.target.value })}
            />
            <button type="button" className="secondary" onClick={() => setRow(index, null)}>
              Remove header {index + 1}
            </button>
          </div>
        ))}
        <FieldIssue id="mcp-headers-issue" message={headersIssue} />
        <button
          type="button"
          className="secondary"
          onClick={() => onChange({ ...value, headers: [...value.headers, { name: '', value: '' }] })}
        >
          Add a header
        </button>
      </fieldset>
    </>
  );
}

function FieldIssue({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <div id={id} className="notice error" role="alert">
      {message}
    </div>
  );
}
