import './flow-node.css';

import { Handle, type NodeProps, Position } from '@xyflow/react';

import { nodeStatusLabel } from '../runs/run-control.util';
import { type FlowNode, summary } from './diagram';

/**
 * A diagram node: its type, id and a summary; a condition leaves by a `true` and a `false` handle. A
 * loop leaves by `body` (right, into its body) and `done` (below, after its last iteration), and its
 * body comes back into its `done` handle (right); a node in a loop's body is tinted and names it. Beside
 * an assistant's proposal, a node says in words (not by colour alone) whether it is added, changed or
 * removed.
 */
export function StepNode({ id, data, selected }: NodeProps<FlowNode>) {
  const classes = ['flow-node'];
  if (data.type === 'loop') classes.push('loop');
  if (data.loops?.length) classes.push(`in-loop depth-${Math.min(data.loops.length, 3)}`);
  if (selected) classes.push('selected');
  if (data.problems?.length) classes.push('invalid');
  if (data.status) classes.push(`status-${data.status}`);
  if (data.diff) classes.push(`diff-${data.diff}`);
  return (
    <div className={classes.join(' ')} data-testid={`node-${id}`} data-status={data.status ?? ''}>
      {data.type === 'trigger' ? null : <Handle type="target" position={Position.Top} />}
      <div className="type">
        {data.type}
        {data.status ? ` · ${nodeStatusLabel(data.status)}` : ''}
        {data.diff ? <span className="diff-mark">{data.diff}</span> : null}
      </div>
      <strong>{id}</strong>
      <div className="muted">{summary(data)}</div>
      {data.loops?.length ? <div className="loop-of">in loop {data.loops.join(' › ')}</div> : null}
      {data.problems?.length ? (
        <ul className="problems">
          {data.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
      {data.type === 'condition' ? (
        <>
          <Handle type="source" id="true" position={Position.Bottom} style={{ left: '30%' }} />
          <span className="handle-label" style={{ left: '22%' }}>
            true
          </span>
          <Handle type="source" id="false" position={Position.Bottom} style={{ left: '70%' }} />
          <span className="handle-label" style={{ left: '62%' }}>
            false
          </span>
        </>
      ) : data.type === 'loop' ? (
        <>
          <Handle type="source" id="body" position={Position.Right} style={{ top: '35%' }} />
          <span className="handle-label side" style={{ top: 'calc(35% - 1.1rem)' }}>
            body
          </span>
          <Handle type="target" id="done" position={Position.Right} style={{ top: '75%' }} />
          <span className="handle-label side" style={{ top: 'calc(75% - 1.1rem)' }}>
            back
          </span>
          <Handle type="source" id="done" position={Position.Bottom} />
          <span className="handle-label" style={{ left: '55%' }}>
            done
          </span>
        </>
      ) : (
        <Handle type="source" position={Position.Bottom} />
      )}
    </div>
  );
}

export const nodeTypes = { step: StepNode };
