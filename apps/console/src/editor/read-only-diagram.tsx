import { useNodesState } from '@xyflow/react';
import { useEffect, useMemo } from 'react';

import { type Diagram, toFlow } from './diagram';
import { StaticFlow } from './static-flow';

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
    <StaticFlow nodes={nodes} onNodesChange={onNodesChange} edges={flow.edges} label="Diagram (read-only)" />
  );
}
