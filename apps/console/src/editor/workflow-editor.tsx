import '@xyflow/react/dist/style.css';
import './canvas.css';
import './workflow-editor.css';

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
} from '@xyflow/react';
import { useCallback, useMemo, useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { useAssistantChat } from '../assistant/assistant-chat';
import { EditorAssistant } from '../assistant/editor-assistant';
import { ErrorNotice } from '../components/ui';
import {
  defaultProperties,
  type DiagramRest,
  edgeLook,
  type FlowNode,
  fromFlow,
  NODE_TYPES,
  nextNodeId,
  restOf,
  toFlow,
  withLoops,
} from './diagram';
import { DiagramSettingsPanel } from './diagram-settings';
import { nodeTypes } from './flow-node';
import { NodePanel } from './node-panel';
import { useNodeTypeSchemas } from './node-type-schemas';
import { problemsOf, ProblemsNotice } from './problems';
import { StartRun } from './start-run';
import { FitView } from './static-flow';

type Workflow = Schemas['WorkflowDetailDto'];

const ZONES = (() => {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  return supported ? ['UTC', ...supported('timeZone').filter((zone) => zone !== 'UTC')] : ['UTC'];
})();

const edgeId = (connection: Connection) =>
  `${connection.source}-${connection.sourceHandle ? `${connection.sourceHandle}-` : ''}${connection.target}${connection.targetHandle ? `-${connection.targetHandle}` : ''}`;

/**
 * The diagram editor: add, move, connect and delete nodes; a node's properties in a form generated
 * from its type's schema; save the draft, publish it, start a run. Problems the API finds (publish,
 * a draft run) are shown on the nodes they name. The assistant proposes drafts to apply.
 */
export function WorkflowEditor({ workflow }: { workflow: Workflow }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const schemas = useNodeTypeSchemas();
  const initial = useMemo(() => toFlow(workflow.diagram), [workflow.diagram]);
  const [nodes, setNodes, onNodesChange] = useNodesState<FlowNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  // The diagram's own properties (its settings) are saved with the nodes and edges, as they were.
  const [rest, setRest] = useState<DiagramRest>(() => restOf(workflow.diagram));
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [problemError, setProblemError] = useState<unknown>(null);
  const [timeZone, setTimeZone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [runOpen, setRunOpen] = useState(false);
  const [assistantOpen, setAssistantOpen] = useState(false);
  // Here rather than in the panel, so closing the panel keeps the conversation.
  const assistant = useAssistantChat({ workflowId: workflow.id });
  const current = useMemo(() => fromFlow(nodes, edges, rest), [nodes, edges, rest]);

  const problems = useMemo(() => problemsOf(problemError), [problemError]);
  const shownNodes = useMemo(
    () =>
      withLoops(nodes, edges).map((node) => {
        const list = problems.byNode.get(node.id);
        return list || node.data.problems ? { ...node, data: { ...node.data, problems: list } } : node;
      }),
    [nodes, edges, problems],
  );
  const selected = shownNodes.find((node) => node.id === selectedId) ?? null;
  const changed = () => setDirty(true);

  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/workflows/{id}', {
          params: { path: { id: workflow.id } },
          body: { diagram: fromFlow(nodes, edges, rest) },
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

  /** A proposal the assistant saved as the draft: the editor now shows it, saved. */
  const showApplied = (saved: Schemas['WorkflowDto']) => {
    const flow = toFlow(saved.diagram);
    setNodes(flow.nodes);
    setEdges(flow.edges);
    setRest(restOf(saved.diagram));
    setSelectedId(null);
    setProblemError(null);
    setDirty(false);
    client.setQueryData(['workflow', workflow.id], { ...workflow, ...saved });
  };

  const onConnect = useCallback(
    (connection: Connection) => {
      setEdges((current) =>
        addEdge({ ...connection, id: edgeId(connection), ...edgeLook(connection) }, current),
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
        <button
          type="button"
          className="secondary"
          aria-expanded={assistantOpen}
          onClick={() => setAssistantOpen((open) => !open)}
        >
          Assistant
        </button>
      </div>
      {publish.isSuccess ? (
        <div className="notice success" role="status">
          Published version {publish.data.number} ({publish.data.timeZone}).
        </div>
      ) : null}
      <DiagramSettingsPanel
        workflowId={workflow.id}
        projectId={workflow.projectId}
        settings={rest.settings as Schemas['DiagramSettings'] | undefined}
        onChange={(settings) => {
          setRest((current) => ({ ...current, settings }));
          changed();
        }}
      />
      <ErrorNotice error={save.error} title="Could not save the draft." />
      <ProblemsNotice error={problemError} problems={problems} onSelect={setSelectedId} />
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
      {assistantOpen ? (
        <EditorAssistant
          assistant={assistant}
          workflowId={workflow.id}
          current={current}
          dirty={dirty}
          onApplied={showApplied}
          onClose={() => setAssistantOpen(false)}
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
