import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { formatTime, QueryView } from '../components/ui';
import { ReadOnlyDiagram } from '../editor/read-only-diagram';

const route = getRouteApi('/_signed-in/workflows/$workflowId');

/** The published versions, newest (live) first; one opens read-only, as it was published. */
export function WorkflowVersions({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
  const { version: open } = route.useSearch();
  const query = useQuery({
    queryKey: ['versions', workflow.id],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/workflows/{id}/versions', {
          params: { path: { id: workflow.id }, query: { limit: 100 } },
        }),
      ),
  });
  return (
    <>
      <QueryView
        query={query}
        isEmpty={(page) => page.data.length === 0}
        empty="Not published yet: publish the draft to make version 1."
      >
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Time zone</th>
                  <th scope="col">Published</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((version, index) => (
                  <tr key={version.id}>
                    <td>
                      <Link
                        to="/workflows/$workflowId"
                        params={{ workflowId: workflow.id }}
                        search={{ tab: 'versions', version: version.number }}
                        aria-current={open === version.number ? 'true' : undefined}
                      >
                        Version {version.number}
                      </Link>{' '}
                      {index === 0 ? <span className="badge info">live</span> : null}
                    </td>
                    <td>{version.timeZone}</td>
                    <td>{formatTime(version.publishedAt)}</td>
                    <td>{version.publishedBy ?? 'an API key'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
      {open === undefined ? null : <VersionView workflowId={workflow.id} number={open} />}
    </>
  );
}

function VersionView({ workflowId, number }: { workflowId: string; number: number }) {
  const query = useQuery({
    queryKey: ['version', workflowId, number],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/workflows/{id}/versions/{number}', {
          params: { path: { id: workflowId, number: String(number) } },
        }),
      ),
    staleTime: Infinity,
  });
  return (
    <section aria-labelledby="version-title">
      <h2 id="version-title">Version {number} (read-only)</h2>
      <QueryView query={query}>
        {(version) => (
          <>
            <p className="muted">
              Published {formatTime(version.publishedAt)} · schedules in {version.timeZone}
            </p>
            <ReadOnlyDiagram key={version.id} diagram={version.diagram} />
          </>
        )}
      </QueryView>
    </section>
  );
}
