import '@xyflow/react/dist/style.css';
import './canvas.css';

import { Background, Controls, ReactFlow, useNodesState } from '@xyflow/react';
import { useEffect, useMemo } from 'react';

import { type Diagram, toFlow } from './diagram';
import { nodeTypes } from './flow-node';

/** A diagram to look at (a run as it ran, a published version), with each node's step status. */
export function ReadOnlyDiagram({
  diagram,
  statuses = {},
}: {
  diagram: Diagram;
  statuses?: Record<string, string>;
}) {
  const flow = useMemo(() => toFlow(diagram), [diagram]);
  // React Flow keeps each node's measured size on the node: the nodes live in its state.
  const [nodes, setNodes, onNodesChange] = useNodesState(flow.nodes);
  useEffect(() => {
    setNodes((current) =>
      current.map((node) =>
        node.data.status === statuses[node.id]
          ? node
          : { ...node, data: { ...node.data, status: statuses[node.id] } },
      ),
    );
  }, [setNodes, statuses]);
  return (
    <div className="canvas small" aria-label="Diagram (read-only)">
      <ReactFlow
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
      </ReactFlow>
    </div>
  );
}
