import { ApiError } from '../api/errors';
import { ErrorNotice } from '../components/ui';

export interface Problems {
  byNode: Map<string, string[]>;
  general: string[];
}

/** The problems an API refusal names per node (`details.issues[].nodeId`), and the rest. */
export function problemsOf(error: unknown): Problems {
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

/** Why publishing or a draft run was refused: each node's problems, with a button that selects it. */
export function ProblemsNotice({
  error,
  problems,
  onSelect,
}: {
  error: unknown;
  problems: Problems;
  onSelect: (nodeId: string) => void;
}) {
  if (!error) return null;
  return (
    <div className="notice error" role="alert">
      <strong>
        {error instanceof ApiError
          ? error.message.replace(/ \(see details\.issues\)/, '')
          : 'Could not publish.'}
      </strong>
      {problems.byNode.size > 0 || problems.general.length > 0 ? (
        <ul>
          {[...problems.byNode].flatMap(([nodeId, list]) =>
            list.map((message) => (
              <li key={`${nodeId}${message}`}>
                <button type="button" className="secondary" onClick={() => onSelect(nodeId)}>
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
      ) : error instanceof ApiError ? null : (
        <ErrorNotice error={error} />
      )}
    </div>
  );
}
