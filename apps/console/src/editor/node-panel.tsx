import type { Connection, Edge } from '@xyflow/react';
import { useState } from 'react';

import { ErrorNotice, Field, Loading } from '../components/ui';
import type { FlowNode } from './diagram';
import type { JsonSchema } from './json-schema';
import { SchemaForm } from './schema-form';

/** The handles a node of the type leaves by, the first the default. */
const HANDLES: Record<string, string[]> = { condition: ['true', 'false'], loop: ['body', 'done'] };

/** The selected node: its properties' form, its connections out, and delete. */
export function NodePanel({
  node,
  nodes,
  edges,
  schemas,
  schemasError,
  onProperties,
  onConnect,
  onDisconnect,
  onDelete,
}: {
  node: FlowNode;
  nodes: FlowNode[];
  edges: Edge[];
  schemas: Record<string, JsonSchema> | undefined;
  schemasError: unknown;
  onProperties: (properties: Record<string, unknown>) => void;
  onConnect: (connection: Connection) => void;
  onDisconnect: (edgeId: string) => void;
  onDelete: () => void;
}) {
  const [target, setTarget] = useState('');
  const handles = HANDLES[node.data.type];
  const [handle, setHandle] = useState(handles?.[0] ?? '');
  const schema = schemas?.[node.data.type];
  const outgoing = edges.filter((edge) => edge.source === node.id);
  const targets = nodes.filter((candidate) => candidate.id !== node.id && candidate.data.type !== 'trigger');
  return (
    <>
      <h2 style={{ marginTop: 0 }}>
        {node.id} <span className="muted">({node.data.type})</span>
      </h2>
      {schema?.description ? <p className="muted">{schema.description.replace(/`/g, '')}</p> : null}
      <ErrorNotice error={schemasError} title="The node types could not be read." />
      {schema ? (
        <SchemaForm schema={schema} value={node.data.properties} onChange={onProperties} />
      ) : schemasError ? null : (
        <Loading />
      )}
      <fieldset>
        <legend>Connections out</legend>
        {outgoing.length === 0 ? <p className="muted">None.</p> : null}
        <ul>
          {outgoing.map((edge) => (
            <li key={edge.id}>
              → {edge.target}
              {edge.sourceHandle ? ` (${edge.sourceHandle})` : ''}{' '}
              <button type="button" className="danger" onClick={() => onDisconnect(edge.id)}>
                Disconnect {edge.target}
              </button>
            </li>
          ))}
        </ul>
        <div className="row">
          <Field label="Connect to">
            {(id) => (
              <select id={id} value={target} onChange={(event) => setTarget(event.target.value)}>
                <option value="">— node —</option>
                {targets.map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {candidate.id}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {handles ? (
            <Field label={node.data.type === 'loop' ? 'From' : 'When'}>
              {(id) => (
                <select id={id} value={handle} onChange={(event) => setHandle(event.target.value)}>
                  {handles.map((one) => (
                    <option key={one} value={one}>
                      {one}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          ) : null}
          <button
            type="button"
            className="secondary"
            disabled={target === ''}
            onClick={() => {
              onConnect({
                source: node.id,
                target,
                sourceHandle: handles ? handle : null,
                // Into a loop from its own body: the edge back that closes the body.
                targetHandle: node.data.loops?.includes(target) ? 'done' : null,
              });
              setTarget('');
            }}
          >
            Connect
          </button>
        </div>
      </fieldset>
      <button type="button" className="danger" onClick={onDelete}>
        Delete node {node.id}
      </button>
    </>
  );
}
