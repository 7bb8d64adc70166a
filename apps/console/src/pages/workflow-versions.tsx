import { useQuery } from '@tanstack/react-query';

import { api, type Schemas, unwrap } from '../api/client';
import { formatTime, QueryView } from '../components/ui';

export function WorkflowVersions({ workflow }: { workflow: Schemas['WorkflowDetailDto'] }) {
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
                    v{version.number} {index === 0 ? <span className="badge info">live</span> : null}
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
  );
}
