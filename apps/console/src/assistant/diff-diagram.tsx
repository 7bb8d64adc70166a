import { useNodesState } from '@xyflow/react';
import { useEffect } from 'react';

import { FitView, StaticFlow } from '../editor/static-flow';
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
    <StaticFlow
      nodes={nodes}
      onNodesChange={onNodesChange}
      edges={flow.edges}
      label={label}
      role="group"
      flowId={flowId}
    >
      <FitView signature={flow.nodes.map((node) => node.id).join('\u0000')} />
    </StaticFlow>
  );
}
