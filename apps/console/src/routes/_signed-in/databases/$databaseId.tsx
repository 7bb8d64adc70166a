import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';

import { api, unwrap } from '../../../api/client';
import { PageHeader, QueryView } from '../../../components/ui';
import { DatabaseDetails } from '../../../databases/database-details';
import { SqlConsole } from '../../../databases/sql-console';

/** A database: its details, and a SQL console. */
export const Route = createFileRoute('/_signed-in/databases/$databaseId')({ component: DatabasePage });

function DatabasePage() {
  const { databaseId } = Route.useParams();
  const query = useQuery({
    queryKey: ['database', databaseId],
    queryFn: () => unwrap(api.GET('/api/v1/databases/{id}', { params: { path: { id: databaseId } } })),
  });
  return (
    <QueryView query={query}>
      {(database) => (
        <>
          <PageHeader title={`Database ${database.name}`} />
          <DatabaseDetails database={database} />
          <SqlConsole database={database} />
        </>
      )}
    </QueryView>
  );
}
