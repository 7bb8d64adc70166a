import '@xyflow/react/dist/style.css';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import {
  addEdge,
  Background,
  type Connection,
  Controls,
  type Edge,
  ReactFlow,
  useEdgesState,
  useNodesState,
  useReactFlow,
} from '@xyflow/react';
import { useCallback, useEffect, useMemo, useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ApiError } from '../api/errors';
import { ErrorNotice, Field, Loading } from '../components/ui';
import { defaultProperties, type FlowNode, fromFlow, NODE_TYPES, nextNodeId, toFlow } from './diagram';
import { nodeTypes } from './flow-node';
import { type JsonSchema, SchemaForm, useNodeTypeSchemas } from './schema-form';

type Workflow = Schemas['WorkflowDetailDto'];

const ZONES = (() => {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  return supported ? ['UTC', ...supported('timeZone').filter((zone) => zone !== 'UTC')] : ['UTC'];
})();

const edgeId = (connection: Connection) =>
  `${connection.source}-${connection.sourceHandle ? `${connection.sourceHandle}-` : ''}${connection.target}`;

/** The problems an API refusal names per node (`details.issues[].nodeId`), and the rest. */
function problemsOf(error: unknown): { byNode: Map<string, string[]>; general: string[] } {
  const byNode = new Map<string, string[]>();
  const general: string[] = [];
  if (error instanceof ApiError) {
    for (const issue of error.issues) {
      if (issue.nodeId) byNode.set(issue.nodeId, [...(byNode.get(issue.nodeId) ?? []), issue.message]);
      else general.push(issue.edgeId ? `Edge ${issue.edgeId}: ${issue.message}` : issue.message);
    }
  }
  return { byNode, general };
}

/**
 * The diagram editor: add, move, connect and delete nodes; a node's properties in a form generated
 * from its type's schema; save the draft, publish it, start a run. Problems the API finds (publish,
 * a draft run) are shown on the nodes they name.
 */
export function WorkflowEditor({ workflow }: { workflow: Workflow }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const schemas = useNodeTypeSchemas();
  const initial = useMemo(() => toFlow(workflow.diagram), [workflow.diagram]);
  const [nodes, setNodes, onNodesChange] = useNodesState<FlowNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [problemError, setProblemError] = useState<unknown>(null);
  const [timeZone, setTimeZone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [runOpen, setRunOpen] = useState(false);

  const problems = useMemo(() => problemsOf(problemError), [problemError]);
  const shownNodes = useMemo(
    () =>
      nodes.map((node) => {
        const list = problems.byNode.get(node.id);
        return list || node.data.problems ? { ...node, data: { ...node.data, problems: list } } : node;
      }),
    [nodes, problems],
  );
  const selected = nodes.find((node) => node.id === selectedId) ?? null;
  const changed = () => setDirty(true);

  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/workflows/{id}', {
          params: { path: { id: workflow.id } },
          body: { diagram: fromFlow(nodes, edges) },
        }),
      ),
    onSuccess: (saved) => {
      setDirty(false);
      client.setQueryData(['workflow', workflow.id], { ...workflow, ...saved });
    },
  });
  const publish = useMutation({
    mutationFn: async () => {
      if (dirty) await save.mutateAsync();
      return unwrap(
        api.POST('/api/v1/workflows/{id}/publish', {
          params: { path: { id: workflow.id } },
          body: { timeZone },
        }),
      );
    },
    onMutate: () => setProblemError(null),
    onError: setProblemError,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['workflow', workflow.id] });
      void client.invalidateQueries({ queryKey: ['versions', workflow.id] });
    },
  });

  const onConnect = useCallback(
    (connection: Connection) => {
      setEdges((current) =>
        addEdge(
          {
            ...connection,
            id: edgeId(connection),
            ...(connection.sourceHandle ? { label: connection.sourceHandle } : {}),
          },
          current,
        ),
      );
      setDirty(true);
    },
    [setEdges],
  );

  const addNode = (type: string) => {
    const id = nextNodeId(
      type,
      nodes.map((node) => node.id),
    );
    const lowest = Math.max(0, ...nodes.map((node) => node.position.y));
    setNodes((current) => [
      ...current.map((node) => ({ ...node, selected: false })),
      {
        id,
        type: 'step',
        position: { x: 80 + (current.length % 3) * 60, y: current.length === 0 ? 40 : lowest + 130 },
        data: { type, properties: defaultProperties(type) },
        selected: true,
      },
    ]);
    setSelectedId(id);
    changed();
  };

  const updateProperties = (id: string, properties: Record<string, unknown>) => {
    setNodes((current) =>
      current.map((node) => (node.id === id ? { ...node, data: { ...node.data, properties } } : node)),
    );
    changed();
  };

  const deleteNode = (id: string) => {
    setNodes((current) => current.filter((node) => node.id !== id));
    setEdges((current) => current.filter((edge) => edge.source !== id && edge.target !== id));
    setSelectedId(null);
    changed();
  };

  return (
    <div>
      <div className="row" style={{ marginBottom: '0.5rem' }}>
        <button type="button" onClick={() => save.mutate()} disabled={save.isPending || !dirty}>
          {save.isPending ? 'Saving…' : dirty ? 'Save draft' : 'Draft saved'}
        </button>
        <label htmlFor="publish-zone">Time zone</label>
        <select id="publish-zone" value={timeZone} onChange={(event) => setTimeZone(event.target.value)}>
          {ZONES.map((zone) => (
            <option key={zone}>{zone}</option>
          ))}
        </select>
        <button type="button" onClick={() => publish.mutate()} disabled={publish.isPending}>
          {publish.isPending ? 'Publishing…' : 'Publish'}
        </button>
        <button
          type="button"
          className="secondary"
          aria-expanded={runOpen}
          onClick={() => setRunOpen((open) => !open)}
        >
          Start a run…
        </button>
      </div>
      {publish.isSuccess ? (
        <div className="notice success" role="status">
          Published version {publish.data.number} ({publish.data.timeZone}).
        </div>
      ) : null}
      <ErrorNotice error={save.error} title="Could not save the draft." />
      {problemError ? (
        <div className="notice error" role="alert">
          <strong>
            {problemError instanceof ApiError
              ? problemError.message.replace(/ \(see details\.issues\)/, '')
              : 'Could not publish.'}
          </strong>
          {problems.byNode.size > 0 || problems.general.length > 0 ? (
            <ul>
              {[...problems.byNode].flatMap(([nodeId, list]) =>
                list.map((message) => (
                  <li key={`${nodeId}${message}`}>
                    <button type="button" className="secondary" onClick={() => setSelectedId(nodeId)}>
                      {nodeId}
                    </button>{' '}
                    {message}
                  </li>
                )),
              )}
              {problems.general.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          ) : problemError instanceof ApiError ? null : (
            <ErrorNotice error={problemError} />
          )}
        </div>
      ) : null}
      {runOpen ? (
        <StartRun
          workflow={workflow}
          triggers={nodes.filter((node) => node.data.type === 'trigger')}
          beforeStart={async (draft) => {
            if (draft && dirty) await save.mutateAsync();
          }}
          onError={setProblemError}
          onStarted={(run) => void navigate({ to: '/runs/$runId', params: { runId: run.id } })}
        />
      ) : null}
      <div className="palette" role="group" aria-label="Add a node">
        {NODE_TYPES.map((type) => (
          <button key={type} type="button" className="secondary" onClick={() => addNode(type)}>
            Add {type}
          </button>
        ))}
      </div>
      <div className="editor">
        <div className="canvas" aria-label="Workflow diagram">
          <ReactFlow
            nodes={shownNodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={(changes) => {
              onNodesChange(changes);
              if (changes.some((change) => change.type === 'position' || change.type === 'remove')) changed();
              for (const change of changes) {
                if (change.type === 'select' && change.selected) setSelectedId(change.id);
                if (change.type === 'remove' && change.id === selectedId) setSelectedId(null);
              }
            }}
            onEdgesChange={(changes) => {
              onEdgesChange(changes);
              if (changes.some((change) => change.type === 'remove')) changed();
            }}
            onConnect={onConnect}
            deleteKeyCode={['Delete', 'Backspace']}
            fitView
            fitViewOptions={{ maxZoom: 1 }}
          >
            <Background />
            <Controls />
            <FitView signature={`${nodes.length}:${problems.byNode.size}`} />
          </ReactFlow>
        </div>
        <aside className="card" aria-label="Node properties">
          {selected ? (
            <NodePanel
              key={selected.id}
              node={selected}
              nodes={nodes}
              edges={edges}
              schemas={schemas.data}
              schemasError={schemas.error}
              onProperties={(properties) => updateProperties(selected.id, properties)}
              onConnect={onConnect}
              onDisconnect={(id) => {
                setEdges((current) => current.filter((edge) => edge.id !== id));
                changed();
              }}
              onDelete={() => deleteNode(selected.id)}
            />
          ) : (
            <p className="muted">Select a node to edit its properties, or add one above.</p>
          )}
        </aside>
      </div>
    </div>
  );
}

/** Keeps every node in sight when nodes come or go, or problems are shown on them. */
function FitView({ signature }: { signature: string }) {
  const { fitView } = useReactFlow();
  useEffect(() => {
    const frame = requestAnimationFrame(() => void fitView({ maxZoom: 1, padding: 0.15 }));
    return () => cancelAnimationFrame(frame);
  }, [fitView, signature]);
  return null;
}

function NodePanel({
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
  const [handle, setHandle] = useState('true');
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
          {node.data.type === 'condition' ? (
            <Field label="When">
              {(id) => (
                <select id={id} value={handle} onChange={(event) => setHandle(event.target.value)}>
                  <option value="true">true</option>
                  <option value="false">false</option>
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
                sourceHandle: node.data.type === 'condition' ? handle : null,
                targetHandle: null,
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

function StartRun({
  workflow,
  triggers,
  beforeStart,
  onStarted,
  onError,
}: {
  workflow: Workflow;
  triggers: FlowNode[];
  beforeStart: (draft: boolean) => Promise<void>;
  onStarted: (run: Schemas['WorkflowRunDto']) => void;
  onError: (error: unknown) => void;
}) {
  const [draft, setDraft] = useState(workflow.publishedVersion === null);
  const [triggerNodeId, setTriggerNodeId] = useState(triggers[0]?.id ?? '');
  const [input, setInput] = useState('');
  const start = useMutation({
    mutationFn: async () => {
      await beforeStart(draft);
      return unwrap(
        api.POST('/api/v1/workflows/{id}/runs', {
          params: { path: { id: workflow.id } },
          body: { input, draft, ...(triggerNodeId ? { triggerNodeId } : {}) },
        }),
      );
    },
    onSuccess: onStarted,
    onError,
  });
  return (
    <form
      className="card"
      aria-label="Start a run"
      onSubmit={(event) => {
        event.preventDefault();
        start.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>Start a run</h2>
      <fieldset>
        <legend>Version</legend>
        <label className="check">
          <input
            type="radio"
            name="run-version"
            checked={!draft}
            disabled={workflow.publishedVersion === null}
            onChange={() => setDraft(false)}
          />
          Live version
          {workflow.publishedVersion === null ? ' (not published yet)' : ` v${workflow.publishedVersion}`}
        </label>
        <label className="check">
          <input type="radio" name="run-version" checked={draft} onChange={() => setDraft(true)} /> Draft
        </label>
      </fieldset>
      <Field label="Trigger">
        {(id) => (
          <select id={id} value={triggerNodeId} onChange={(event) => setTriggerNodeId(event.target.value)}>
            {triggers.map((trigger) => (
              <option key={trigger.id} value={trigger.id}>
                {trigger.id}
                {typeof trigger.data.properties.label === 'string'
                  ? ` — ${trigger.data.properties.label}`
                  : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Input" hint="The trigger's payload: JSON is readable in steps as {{trigger.<path>}}.">
        {(id) => (
          <textarea
            id={id}
            className="code"
            value={input}
            onChange={(event) => setInput(event.target.value)}
          />
        )}
      </Field>
      <ErrorNotice error={start.error} title="Could not start the run." />
      <button type="submit" disabled={start.isPending}>
        {start.isPending ? 'Starting…' : 'Start run'}
      </button>
    </form>
  );
}
