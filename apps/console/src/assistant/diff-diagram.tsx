import '@xyflow/react/dist/style.css';
import '../editor/canvas.css';

import { Background, Controls, ReactFlow, useNodesState, useReactFlow } from '@xyflow/react';
import { useEffect } from 'react';

import { nodeTypes } from '../editor/flow-node';
import type { DiffFlow } from './proposal-diff.util';

/**
 * A diagram of the comparison, read-only, its nodes marked. `flowId` must differ between the canvases
 * of one page: React Flow names its descriptions' elements by it, and ids must be unique.
 */
export function DiffDiagram({ flow, label, flowId }: { flow: DiffFlow; label: string; flowId: string }) {
  // React Flow keeps each node's measured size on the node: the nodes live in its state.
  const [nodes, setNodes, onNodesChange] = useNodesState(flow.nodes);
  useEffect(() => setNodes(flow.nodes), [setNodes, flow.nodes]);
  return (
    <div className="canvas small" role="group" aria-label={label}>
      <ReactFlow
        id={flowId}
        nodes={nodes}
        onNodesChange={onNodesChange}
        edges={flow.edges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
      >
        <Background />
        <Controls showInteractive={false} />
        <FitView signature={flow.nodes.map((node) => node.id).join('\u0000')} />
      </ReactFlow>
    </div>
  );
}

/** Keeps every node in sight when the nodes drawn change (the draft after a proposal is applied). */
function FitView({ signature }: { signature: string }) {
  const { fitView } = useReactFlow();
  useEffect(() => {
    const frame = requestAnimationFrame(() => void fitView({ maxZoom: 1, padding: 0.15 }));
    return () => cancelAnimationFrame(frame);
  }, [fitView, signature]);
  return null;
}
