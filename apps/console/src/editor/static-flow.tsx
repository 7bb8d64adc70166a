import '@xyflow/react/dist/style.css';
import './canvas.css';

import {
  Background,
  Controls,
  type Edge,
  type Node,
  type OnNodesChange,
  ReactFlow,
  useReactFlow,
} from '@xyflow/react';
import { type ReactNode, useEffect } from 'react';

import { nodeTypes } from './flow-node';

/**
 * A diagram drawn to be looked at, not edited: a run as it ran, a published version, a proposal.
 * The nodes stay in the caller's state (React Flow keeps each node's measured size on the node).
 */
export function StaticFlow<N extends Node>({
  nodes,
  onNodesChange,
  edges,
  label,
  role,
  flowId,
  children,
}: {
  nodes: N[];
  onNodesChange: OnNodesChange<N>;
  edges: Edge[];
  label: string;
  role?: 'group';
  /** Must differ between the canvases of one page: React Flow names its elements by it. */
  flowId?: string;
  children?: ReactNode;
}) {
  return (
    <div className="canvas small" role={role} aria-label={label}>
      <ReactFlow
        id={flowId}
        nodes={nodes}
        onNodesChange={onNodesChange}
        edges={edges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
      >
        <Background />
        <Controls showInteractive={false} />
        {children}
      </ReactFlow>
    </div>
  );
}

/** Keeps every node in sight when `signature` changes (nodes come or go, problems are shown on them). */
export function FitView({ signature }: { signature: string }) {
  const { fitView } = useReactFlow();
  useEffect(() => {
    const frame = requestAnimationFrame(() => void fitView({ maxZoom: 1, padding: 0.15 }));
    return () => cancelAnimationFrame(frame);
  }, [fitView, signature]);
  return null;
}
